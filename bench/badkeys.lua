-- wrk: a flood of made-up secret keys (each request a different one), as an attacker or a
-- misconfigured client would send: the API must answer them without starving real callers.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"event":"page.viewed","subscriberId":"u_1"}'
local counter = 0
request = function()
  counter = counter + 1
  local key = string.format("sk_%016x_%s", math.random(0, 2147483647) * 65536 + counter % 65536, string.rep("0", 64))
  return wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" })
end
