/// Figures scripts/bench.sh measured outside this process (wrk against the API, apns-bench)
/// and passed in `API_*` / `APNS_*` variables.
enum APIFigures {
    static func add(from environment: [String: String], to report: inout BenchReport) {
        func value(_ key: String) -> Double? { environment[key].flatMap(Double.init) }
        let hello = value("RAW_HTTP_HELLO")
        if let single = value("API_SINGLE_RPS") {
            report.add("api: single-event POST /v1/events, confirmed (target 6,500)", single, unit: "req/s", raw: hello)
        }
        if let cpu = value("API_SINGLE_CPU_US") {
            report.add("api: the API process's CPU per single event, against the raw stack's per request", cpu, unit: "µs", raw: value("RAW_HTTP_CPU_US"))
        }
        if let p99 = value("API_SINGLE_P99_MS") { report.add("api: single-event p99 latency (target ≤ 50)", p99, unit: "ms") }
        if let flood = value("API_FLOOD_RPS") {
            report.add("api: unknown-key flood beside the ordinary load (answered 401/429)", flood, unit: "req/s")
        }
        if let rps = value("API_FLOODED_RPS") { report.add("api: ordinary single events beside the flood", rps, unit: "req/s") }
        if let p99 = value("API_FLOODED_P99_MS") {
            report.add("api: ordinary p99 beside the flood (target ≤ 2× unloaded p99)", p99, unit: "ms")
            if let unloaded = value("API_SINGLE_P99_MS"), unloaded > 0 {
                report.add("api: ordinary p99 beside the flood ÷ unloaded p99 (target ≤ 2)", p99 / unloaded, unit: "×")
            }
        }
        if let failed = value("API_FLOODED_FAILED") { report.add("api: ordinary requests that failed beside the flood (target 0)", failed, unit: "requests") }
        if let batch = value("API_BATCH_EVENTS") {
            report.add("api: batched ingest, 100 events a request (target 25,000)", batch, unit: "events/s")
        }
        if let cpu = value("API_BATCH_CPU_US") { report.add("api: the API process's CPU per batched event", cpu, unit: "µs") }
        if let rss = value("API_RSS_MB") { report.add("api: resident memory after the load (target < 100)", rss, unit: "MiB") }
        if let pages = environment["CONSOLE_PAGES"], let runs = value("CONSOLE_RUNS") {
            // `name:median:slowest,…` from bench/console_pages.py: navigation start to data on screen.
            for page in pages.split(separator: ",") {
                let parts = page.split(separator: ":")
                guard parts.count == 3, let median = Double(parts[1]) else { continue }
                report.add("console: \(parts[0]) page with \(Int(runs)) runs stored, navigation to data shown (target < 300)", median,
                           unit: "ms median of 5 (slowest \(parts[2]) ms)")
            }
        }
        if let pushes = value("APNS_PUSHES_PER_SECOND") {
            report.add("apns: pushes to the stand-in over ≤ 2 HTTP/2 connections (target 5,000)", pushes, unit: "pushes/s")
        }
        if let cpu = value("APNS_CPU_MICROS") { report.add("apns: provider CPU per push", cpu, unit: "µs") }
    }
}
