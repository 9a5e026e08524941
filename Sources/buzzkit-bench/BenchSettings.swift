import Foundation

/// What the benchmark connects to and how long it measures.
struct BenchSettings {
    var databaseURL: String
    var amqpURL: String
    var seconds: Double
    var messages: Int
    /// Raw ceilings measured by scripts/bench.sh in this same run.
    var raw: [String: Double]

    init(environment: [String: String]) {
        databaseURL = environment["BUZZKIT_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/buzzkit"
        amqpURL = environment["BUZZKIT_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:55672/%2f"
        seconds = environment["BENCH_SECONDS"].flatMap(Double.init) ?? 5
        messages = environment["BENCH_MESSAGES"].flatMap(Int.init) ?? 100_000
        raw = environment.filter { $0.key.hasPrefix("RAW_") }.compactMapValues(Double.init)
    }
}
