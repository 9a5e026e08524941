import Foundation

/// Process metrics in Prometheus text format: counters and histograms with labels.
/// Thread-safe; cheap enough for hot paths (one lock, no allocation for known series).
public final class Metrics: @unchecked Sendable {
    struct Series: Hashable {
        var name: String
        var labels: [String: String]
    }

    final class Histogram {
        let buckets: [Double]
        var counts: [Int]
        var sum = 0.0
        var count = 0
        init(buckets: [Double]) {
            self.buckets = buckets
            counts = Array(repeating: 0, count: buckets.count)
        }
        func observe(_ value: Double) {
            for (i, bound) in buckets.enumerated() where value <= bound { counts[i] += 1 }
            sum += value
            count += 1
        }
    }

    /// Seconds buckets for latencies.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private let lock = NSLock()
    private var counters: [Series: Double] = [:]
    private var gauges: [Series: Double] = [:]
    private var histograms: [Series: Histogram] = [:]
    private var help: [String: (type: String, text: String)] = [:]

    public init() {}

    /// Adds `value` to a counter.
    public func increment(_ name: String, _ labels: [String: String] = [:], by value: Double = 1, help text: String = "") {
        lock.lock(); defer { lock.unlock() }
        counters[Series(name: name, labels: labels), default: 0] += value
        if help[name] == nil { help[name] = ("counter", text) }
    }

    /// Sets a gauge.
    public func set(_ name: String, _ labels: [String: String] = [:], to value: Double, help text: String = "") {
        lock.lock(); defer { lock.unlock() }
        gauges[Series(name: name, labels: labels)] = value
        if help[name] == nil { help[name] = ("gauge", text) }
    }

    /// Records one observation in a histogram.
    public func observe(_ name: String, _ labels: [String: String] = [:], _ value: Double,
                        buckets: [Double] = Metrics.latencyBuckets, help text: String = "") {
        lock.lock(); defer { lock.unlock() }
        let series = Series(name: name, labels: labels)
        let histogram = histograms[series] ?? {
            let created = Histogram(buckets: buckets)
            histograms[series] = created
            return created
        }()
        histogram.observe(value)
        if help[name] == nil { help[name] = ("histogram", text) }
    }

    /// Timer lateness: seconds between a timer's due time and its publish.
    public func observeTimerLateness(_ seconds: Double) {
        observe("buzzkit_timer_lateness_seconds", [:], max(0, seconds), help: "Seconds between a timer's due time and its publish to RabbitMQ")
    }

    /// A counter's current value (tests and progress lines).
    public func counter(_ name: String, _ labels: [String: String] = [:]) -> Double {
        lock.lock(); defer { lock.unlock() }
        return counters[Series(name: name, labels: labels)] ?? 0
    }

    /// A histogram's observations so far and their sum (tests and the bench).
    public func histogram(_ name: String, _ labels: [String: String] = [:]) -> (count: Int, sum: Double) {
        lock.lock(); defer { lock.unlock() }
        guard let histogram = histograms[Series(name: name, labels: labels)] else { return (0, 0) }
        return (histogram.count, histogram.sum)
    }

    /// The Prometheus text exposition.
    public func render() -> String {
        lock.lock(); defer { lock.unlock() }
        var out = ""
        func labelText(_ labels: [String: String], extra: (String, String)? = nil) -> String {
            var pairs = labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            if let extra { pairs.append(extra) }
            guard !pairs.isEmpty else { return "" }
            return "{" + pairs.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        func header(_ name: String) {
            if let info = help[name] {
                if !info.text.isEmpty { out += "# HELP \(name) \(info.text)\n" }
                out += "# TYPE \(name) \(info.type)\n"
            }
        }
        for name in Set(counters.keys.map(\.name)).sorted() {
            header(name)
            for (series, value) in counters where series.name == name { out += "\(name)\(labelText(series.labels)) \(format(value))\n" }
        }
        for name in Set(gauges.keys.map(\.name)).sorted() {
            header(name)
            for (series, value) in gauges where series.name == name { out += "\(name)\(labelText(series.labels)) \(format(value))\n" }
        }
        for name in Set(histograms.keys.map(\.name)).sorted() {
            header(name)
            for (series, histogram) in histograms where series.name == name {
                for (bound, count) in zip(histogram.buckets, histogram.counts) {
                    out += "\(name)_bucket\(labelText(series.labels, extra: ("le", format(bound)))) \(count)\n"
                }
                out += "\(name)_bucket\(labelText(series.labels, extra: ("le", "+Inf"))) \(histogram.count)\n"
                out += "\(name)_sum\(labelText(series.labels)) \(format(histogram.sum))\n"
                out += "\(name)_count\(labelText(series.labels)) \(histogram.count)\n"
            }
        }
        return out
    }

    private func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
