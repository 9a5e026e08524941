import BuzzKitWire
import Foundation

/// A local notification request with a one-shot calendar trigger at a floating wall clock,
/// the shape of `UNNotificationRequest` + `UNCalendarNotificationTrigger(repeats: false)`
/// without a time zone in its date components.
public struct NotificationRequest: Sendable, Hashable, Codable {
    /// The request identifier. BuzzKit uses the plan's local id (`<runId>/<stepName>`).
    public var id: String
    /// The title shown.
    public var title: String
    /// The body shown.
    public var body: String
    /// The sound name, `default` unless silent.
    public var sound: String?
    /// The user info kept with the request; BuzzKit's requests carry a `bk` object
    /// (see ``NotificationMessage``).
    public var userInfo: [String: JSONValue]
    /// The wall clock to fire at, in whatever zone the device is in at that time.
    public var fireAt: FireAt

    /// A request from its parts.
    public init(id: String, title: String, body: String, sound: String? = "default",
                userInfo: [String: JSONValue] = [:], fireAt: FireAt) {
        self.id = id
        self.title = title
        self.body = body
        self.sound = sound
        self.userInfo = userInfo
        self.fireAt = fireAt
    }

    /// The request for a plan: id = local id, the plan's title and body, user info
    /// `{"bk": {messageId, localId, deepLink?, data}}`, fired at the plan's floating `fireAt`.
    public init(plan: LocalPlan) {
        self.init(id: plan.id, title: plan.title, body: plan.body,
                  userInfo: NotificationMessage(plan: plan).userInfo, fireAt: plan.fireAt)
    }

    /// The instant the request fires at in `zone`.
    public func fireInstant(in zone: TimeZone) -> Date {
        fireAt.instant(in: zone)
    }

    /// The BuzzKit message this request carries, if it is one of BuzzKit's.
    public var message: NotificationMessage? {
        NotificationMessage(userInfo: userInfo)
    }
}
