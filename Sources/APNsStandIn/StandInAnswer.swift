import Foundation

/// An answer the stand-in sends, shaped like APNs': `:status`, `apns-id`, and for errors a
/// JSON body `{"reason": "…"}` (with `"timestamp"` in milliseconds for 410).
struct StandInAnswer: Sendable, Equatable {
    var status: Int
    var reason: String?
    var apnsId: UUID
    var timestamp: Date?
    /// `retry-after` in seconds, when the answer asks the provider to wait.
    var retryAfter: Int? = nil

    /// 200 with the push's `apns-id`.
    static func accepted(_ apnsId: UUID) -> StandInAnswer {
        StandInAnswer(status: 200, reason: nil, apnsId: apnsId, timestamp: nil)
    }

    /// An error answer.
    static func error(_ status: Int, _ reason: String, apnsId: UUID, timestamp: Date? = nil) -> StandInAnswer {
        StandInAnswer(status: status, reason: reason, apnsId: apnsId, timestamp: timestamp)
    }

    /// The response header fields after `:status`.
    var headers: [(String, String)] {
        var fields = [("apns-id", apnsId.uuidString)]
        if reason != nil { fields.append(("content-type", "application/json; charset=utf-8")) }
        if let retryAfter { fields.append(("retry-after", String(retryAfter))) }
        return fields
    }

    /// The response body: empty for 200, else the reason (and timestamp) as JSON.
    var body: Data {
        guard let reason else { return Data() }
        var text = "{\"reason\":\"\(reason)\""
        if let timestamp {
            text += ",\"timestamp\":\(Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down)))"
        }
        return Data((text + "}").utf8)
    }
}
