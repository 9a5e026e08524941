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

/// Rows of figures, printed as one table.
struct BenchReport {
    struct Row {
        var name: String
        var value: Double
        var unit: String
        var raw: Double?
    }
    var rows: [Row] = []
    /// Lines printed after the table (profiles).
    var notes: [String] = []

    mutating func add(_ name: String, _ value: Double, unit: String, raw: Double? = nil) {
        rows.append(Row(name: name, value: value, unit: unit, raw: raw))
        FileHandle.standardError.write(Data("  \(name): \(Self.format(value)) \(unit)\n".utf8))
    }

    static func format(_ value: Double) -> String {
        if value >= 100 {
            let formatter = NumberFormatter()
            formatter.numberStyle = .decimal
            formatter.maximumFractionDigits = 0
            return formatter.string(from: NSNumber(value: value)) ?? "\(Int(value))"
        }
        return String(format: "%.2f", value)
    }

    func print() {
        let nameWidth = max(10, rows.map(\.name.count).max() ?? 0)
        func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
            s.count >= n ? s : (left ? String(repeating: " ", count: n - s.count) + s : s + String(repeating: " ", count: n - s.count))
        }
        Swift.print("")
        Swift.print(pad("figure", nameWidth) + "  " + pad("BuzzKit", 12, left: true) + "  " + pad("raw", 12, left: true) + "  " + pad("ratio", 6, left: true) + "  unit")
        Swift.print(String(repeating: "-", count: nameWidth + 48))
        for row in rows {
            let raw = row.raw.map { Self.format($0) } ?? "-"
            let ratio = row.raw.map { $0 > 0 ? String(format: "%.2f", row.value / $0) : "-" } ?? "-"
            Swift.print(pad(row.name, nameWidth) + "  " + pad(Self.format(row.value), 12, left: true) + "  " + pad(raw, 12, left: true) + "  " + pad(ratio, 6, left: true) + "  " + row.unit)
        }
        if !notes.isEmpty { Swift.print(""); notes.forEach { Swift.print($0) } }
    }
}
