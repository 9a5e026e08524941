-- wrk: one event per request with the tenant's secret key (BENCH_KEY).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_KEY")
wrk.body = '{"event":"page.viewed","subscriberId":"u_1","properties":{"path":"/home"}}'
