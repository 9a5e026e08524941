import Foundation

/// One measured rate.
struct BenchResult {
    let name: String
    let operations: Int
    let seconds: Double
    let checksum: Int

    var rate: Double { Double(operations) / seconds }

    var report: String {
        let formatted = String(Int(rate.rounded())).reversed().enumerated()
            .map { $0.offset > 0 && $0.offset % 3 == 0 ? "\($0.element)," : "\($0.element)" }
            .reversed().joined()
        return "\(name): \(formatted)/s (\(operations) in \(String(format: "%.2f", seconds)) s, checksum \(checksum))"
    }

    /// Runs `batch` repeatedly for about `seconds` (after a warm-up batch) and reports the
    /// operations per second. `batch` returns how many operations it did and a checksum
    /// that keeps the optimizer honest.
    static func run(_ name: String, seconds: Double, batch: () -> (operations: Int, checksum: Int)) -> BenchResult {
        _ = batch()
        let clock = ContinuousClock()
        let start = clock.now
        var operations = 0
        var checksum = 0
        var elapsed = 0.0
        while elapsed < seconds {
            let result = batch()
            operations += result.operations
            checksum &+= result.checksum
            let duration = clock.now - start
            elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        return BenchResult(name: name, operations: operations, seconds: elapsed, checksum: checksum)
    }
}

extension Array where Element == Double {
    /// The value at fraction `p` (0...1) of these values, sorted ascending (nearest rank
    /// below); NaN when there are none.
    func percentile(_ p: Double) -> Double {
        isEmpty ? .nan : self[Swift.min(count - 1, Int(Double(count - 1) * p))]
    }
}
