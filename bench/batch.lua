-- wrk: 100 events per request.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_KEY")
local events = {}
for i = 1, 100 do events[i] = '{"event":"page.viewed","subscriberId":"u_' .. i .. '","properties":{"path":"/home"}}' end
wrk.body = '{"events":[' .. table.concat(events, ",") .. ']}'
