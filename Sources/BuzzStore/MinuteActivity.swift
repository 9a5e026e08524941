import Foundation

/// What a tenant's pipeline did in one minute, for the console's health page: pushes by kind
/// and outcome, and the local windows whose moment fell in the minute by how they were decided.
///
/// Read from the tables the pipeline writes anyway (`deliveries` by `created_at`, `local_plans`
/// by `moment`, each behind a BRIN index that costs the hot path next to nothing), so every
/// worker process is counted, not just the API's own.
public struct MinuteActivity: Sendable, Equatable {
    /// The minute's start (UTC).
    public var minute: Date
    /// Pushes APNs accepted, by kind (`plan`, `cancel`, `fallback`, `push`).
    public var sent: [String: Int] = [:]
    /// Pushes that failed, were rejected, found the token unregistered or expired unsent, by kind.
    public var failed: [String: Int] = [:]
    /// Windows whose moment fell in the minute and that a device held (no fallback sent).
    public var acknowledged = 0
    /// Windows whose moment fell in the minute and whose fallback was decided.
    public var fallback = 0

    public init(minute: Date) { self.minute = minute }

    /// The minute `date` falls in.
    public static func minute(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
    }

    /// Counts a push of `kind` with its stored status (`pending` counts as neither).
    public mutating func count(kind: String, status: String, _ n: Int = 1) {
        switch status {
        case "sent": sent[kind, default: 0] += n
        case "failed", "rejected", "unregistered", "expired": failed[kind, default: 0] += n
        default: break
        }
    }

    /// Every minute from `since` to `until`, oldest first, with the counts of `found` and
    /// zeros for the minutes without any.
    public static func series(_ found: [MinuteActivity], since: Date, until: Date) -> [MinuteActivity] {
        let byMinute = Dictionary(found.map { ($0.minute, $0) }, uniquingKeysWith: { a, _ in a })
        var out: [MinuteActivity] = []
        var minute = Self.minute(of: since)
        while minute <= until {
            out.append(byMinute[minute] ?? MinuteActivity(minute: minute))
            minute += 60
        }
        return out
    }
}
