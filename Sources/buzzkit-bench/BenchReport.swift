import Foundation

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
    /// Markdown lines written after the table, in docs/performance.md and on standard output
    /// (the tables a single figure cannot hold).
    var sections: [String] = []

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
        if !sections.isEmpty { sections.forEach { Swift.print($0) } }
        if !notes.isEmpty { Swift.print(""); notes.forEach { Swift.print($0) } }
    }

    /// The figures as docs/performance.md: one header line naming the machine and the date,
    /// then one table (figure, value, unit, raw ceiling, ratio). `make bench` writes it.
    func markdown(now: Date = Date()) -> String {
        var lines = ["# Performance (`make bench`)", "",
                     "Written by `make bench` (`scripts/bench.sh`), \(Self.machine()), \(Self.date(now)). "
                         + "Raw ceilings are measured in the same run: pgbench (PostgreSQL), `bench/raw_amqp.c` (RabbitMQ), "
                         + "a hello-world on the API's HTTP stack; a row's target, where it has one, is in its name.", "",
                     "| figure | BuzzKit | unit | raw | ratio |", "|---|---:|---|---:|---:|"]
        for row in rows {
            let raw = row.raw.map { Self.format($0) } ?? ""
            let ratio = row.raw.map { $0 > 0 ? String(format: "%.2f", row.value / $0) : "" } ?? ""
            let cells = [row.name, Self.format(row.value), row.unit, raw, ratio].map { $0.replacingOccurrences(of: "|", with: "\\|") }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines += sections
        return lines.joined(separator: "\n") + "\n"
    }

    /// "Linux, 2 cores (model), 24 GiB".
    static func machine() -> String {
        let info = ProcessInfo.processInfo
        let model = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
        let memory = Double(info.physicalMemory) / Double(1 << 30)
        return "\(info.activeProcessorCount) cores" + (model.map { " (\($0))" } ?? "") + String(format: ", %.0f GiB", memory)
            + ", PostgreSQL, RabbitMQ and every BuzzKit process on the one machine"
    }

    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
