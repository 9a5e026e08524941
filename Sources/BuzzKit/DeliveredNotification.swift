import BuzzKitWire
import Foundation

/// A notification the device showed: a local request that fired, or a remote alert.
public struct DeliveredNotification: Sendable, Hashable {
    /// Where a shown notification came from.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// A local notification request that fired.
        case local
        /// A remote alert push (a fallback or an ordinary push).
        case remote
    }

    /// The request id (local) or the alert's identifier (remote: its collapse id, else its
    /// message id).
    public var id: String
    /// Local or remote.
    public var origin: Origin
    /// The title shown.
    public var title: String
    /// The body shown.
    public var body: String
    /// The user info: a local request's, or the whole remote payload.
    public var userInfo: [String: JSONValue]
    /// For a local notification, the instant its wall clock named in the zone the device was
    /// in when it fired; `nil` for a remote alert.
    public var scheduledFor: Date?
    /// When the device showed it.
    public var deliveredAt: Date
    /// The device's zone when it was shown.
    public var timeZoneIdentifier: String

    /// A delivered notification from its parts.
    public init(id: String, origin: Origin, title: String, body: String, userInfo: [String: JSONValue],
                scheduledFor: Date?, deliveredAt: Date, timeZoneIdentifier: String) {
        self.id = id
        self.origin = origin
        self.title = title
        self.body = body
        self.userInfo = userInfo
        self.scheduledFor = scheduledFor
        self.deliveredAt = deliveredAt
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    /// The BuzzKit message it carries, if any.
    public var message: NotificationMessage? {
        NotificationMessage(userInfo: userInfo)
    }
}
