/// The APNs request headers a delivery needs, besides `apns-topic` (the device's bundle id,
/// which only the sender knows) and the authorization.
public struct APNsHeaders: Sendable, Hashable, Codable {
    /// `apns-push-type`: `background` or `alert`.
    public var pushType: String
    /// `apns-priority`: 5 for background pushes, 10 for alerts.
    public var priority: Int
    /// `apns-expiration` in epoch seconds, when set.
    public var expiration: Int64?
    /// `apns-collapse-id` (at most 64 bytes), when set.
    public var collapseId: String?

    /// Headers from their parts.
    public init(pushType: String, priority: Int, expiration: Int64? = nil, collapseId: String? = nil) {
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
    }

    /// A silent plan push: background, priority 5, expiring at the moment (epoch seconds).
    public static func plan(expiresAt epochSeconds: Int64) -> APNsHeaders {
        APNsHeaders(pushType: "background", priority: 5, expiration: epochSeconds)
    }

    /// A cancel push: background, priority 5.
    public static let cancel = APNsHeaders(pushType: "background", priority: 5)

    /// An alert push (fallback or ordinary push) collapsing on its idempotency key and, when
    /// given, expiring at the end of its lifetime (epoch seconds).
    public static func alert(collapseId: String, expiresAt epochSeconds: Int64? = nil) -> APNsHeaders {
        APNsHeaders(pushType: "alert", priority: 10, expiration: epochSeconds, collapseId: collapseId)
    }

    /// The header fields, `apns-topic` included.
    public func fields(topic: String) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("apns-push-type", pushType), ("apns-priority", String(priority)), ("apns-topic", topic),
        ]
        if let expiration { fields.append(("apns-expiration", String(expiration))) }
        if let collapseId { fields.append(("apns-collapse-id", collapseId)) }
        return fields
    }
}
