import Foundation

/// Failures the stand-in injects into otherwise valid pushes, after Apple's checks pass.
///
/// Rules by device token come first, then the random rates; ``latency`` delays every answer
/// (without blocking other streams of the connection).
public struct APNsFailurePlan: Sendable, Equatable {
    /// What happens to pushes for one device token.
    public enum Rule: Sendable, Equatable {
        /// Always 400 `BadDeviceToken`.
        case badDeviceToken
        /// Always 410 `Unregistered`, with `timestamp` = `since` in milliseconds.
        case unregistered(since: Date)
        /// Always this status and reason (for example 500 `InternalServerError`,
        /// 429 `TooManyRequests`, 503 `ServiceUnavailable`).
        case status(Int, reason: String)
        /// The first `count` requests get this status and reason, later ones succeed.
        case failFirst(Int, status: Int, reason: String)
        /// The first `count` requests get 429 `TooManyRequests` with `retry-after: seconds`,
        /// later ones succeed.
        case throttleFirst(Int, retryAfter: Int)
    }

    /// Rules by device token (lowercase hex).
    public var byToken: [String: Rule] = [:]
    /// The fraction (0…1) of other valid pushes answered 429 `TooManyRequests`.
    public var tooManyRequestsRate: Double = 0
    /// The fraction (0…1) of other valid pushes answered 500 `InternalServerError`.
    public var internalServerErrorRate: Double = 0
    /// Seconds added before every answer.
    public var latency: TimeInterval = 0

    /// An empty plan: every valid push succeeds at once.
    public init() {}

    /// Sets the rule for `token` (stored lowercase).
    public mutating func set(_ rule: Rule?, forToken token: String) {
        byToken[token.lowercased()] = rule
    }

    /// Parses a command-line rule `TOKEN=SPEC`, where SPEC is `400` (BadDeviceToken), `410`
    /// (Unregistered, since now), `429`, `500`, `503` (always), or `<status>x<k>` (the first
    /// k requests fail with that status, then success), for example `500x2`.
    public static func parseRule(_ text: String, now: Date) throws -> (token: String, rule: Rule) {
        func bad() -> APNsStandInError {
            APNsStandInError(.invalidConfiguration, context: "parse --fail \(text)",
                             message: "expected TOKEN=400|410|429|500|503 or TOKEN=<status>x<count>")
        }
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else { throw bad() }
        let token = parts[0].lowercased()
        let spec = parts[1].lowercased().split(separator: "x", maxSplits: 1).map(String.init)
        guard let status = Int(spec[0]), [400, 410, 429, 500, 503].contains(status) else { throw bad() }
        if spec.count == 2 {
            guard let count = Int(spec[1]), count >= 1 else { throw bad() }
            return (token, .failFirst(count, status: status, reason: reason(for: status)))
        }
        switch status {
        case 400: return (token, .badDeviceToken)
        case 410: return (token, .unregistered(since: now))
        default: return (token, .status(status, reason: reason(for: status)))
        }
    }

    /// Apple's reason for each injectable status.
    static func reason(for status: Int) -> String {
        switch status {
        case 400: return "BadDeviceToken"
        case 410: return "Unregistered"
        case 429: return "TooManyRequests"
        case 503: return "ServiceUnavailable"
        default: return "InternalServerError"
        }
    }
}
