import Foundation

/// Exponential backoff with jitter for failed event flushes and device registrations.
///
/// The n-th consecutive failure waits `initialDelay × multiplierⁿ⁻¹`, capped at
/// `maximumDelay`, minus a random share of up to `jitter` (so a fleet that failed together
/// does not retry together), and never less than the server's `Retry-After`.
public struct RetryPolicy: Sendable, Hashable {
    /// The wait after the first failure, in seconds.
    public var initialDelay: TimeInterval
    /// The growth factor per further failure.
    public var multiplier: Double
    /// The longest wait, in seconds.
    public var maximumDelay: TimeInterval
    /// The largest share (0–1) of a wait removed at random.
    public var jitter: Double

    /// A policy from its parts.
    public init(initialDelay: TimeInterval = 2, multiplier: Double = 2, maximumDelay: TimeInterval = 300, jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
    }

    /// 2 s, doubling, at most 5 minutes, 20 % jitter.
    public static let standard = RetryPolicy()

    /// The wait after `failures` consecutive failures (1 for the first), given the server's
    /// `Retry-After` and a random number in 0..<1.
    public func delay(afterFailures failures: Int, retryAfter: TimeInterval? = nil, random: Double) -> TimeInterval {
        let exponent = Double(max(failures, 1) - 1)
        let base = min(maximumDelay, initialDelay * pow(multiplier, min(exponent, 64)))
        let jittered = base * (1 - jitter * min(max(random, 0), 1))
        guard let retryAfter, retryAfter > 0 else { return jittered }
        return max(jittered, min(retryAfter, 3_600))
    }
}
