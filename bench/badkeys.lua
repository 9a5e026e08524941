-- wrk: a flood of made-up secret keys (each request a different one), as an attacker or a
-- misconfigured client would send, at a fixed rate: BENCH_FLOOD_RATE requests a second across
-- BENCH_FLOOD_CONNECTIONS connections (defaults 5,000 and 40). The API must answer them
-- without starving real callers.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"event":"page.viewed","subscriberId":"u_1"}'
local rate = tonumber(os.getenv("BENCH_FLOOD_RATE") or "5000")
local connections = tonumber(os.getenv("BENCH_FLOOD_CONNECTIONS") or "40")
local pause = math.max(0, math.floor(1000 * connections / rate) - 1)  -- about 1 ms goes to the answer itself
local counter = 0
request = function()
  counter = counter + 1
  local key = string.format("sk_%016x_%s", math.random(0, 2147483647) * 65536 + counter % 65536, string.rep("0", 64))
  return wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" })
end
delay = function() return pause end
