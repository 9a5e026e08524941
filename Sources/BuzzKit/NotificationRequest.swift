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
    /// Interruption level, sound, thread, badge and category (the buttons).
    public var presentation: NotificationPresentation
    /// The user info kept with the request; BuzzKit's requests carry a `bk` object
    /// (see ``NotificationMessage``).
    public var userInfo: [String: JSONValue]
    /// The wall clock to fire at, in whatever zone the device is in at that time.
    public var fireAt: FireAt

    /// A request from its parts.
    public init(id: String, title: String, body: String, sound: String? = NotificationPresentation.defaultSound,
                userInfo: [String: JSONValue] = [:], fireAt: FireAt) {
        self.init(id: id, title: title, body: body, presentation: NotificationPresentation(sound: sound), userInfo: userInfo, fireAt: fireAt)
    }

    /// A request with a whole presentation.
    public init(id: String, title: String, body: String, presentation: NotificationPresentation,
                userInfo: [String: JSONValue] = [:], fireAt: FireAt) {
        self.id = id
        self.title = title
        self.body = body
        self.presentation = presentation
        self.userInfo = userInfo
        self.fireAt = fireAt
    }

    /// The request for a plan: id = local id, the plan's title, body and presentation, user
    /// info `{"bk": {messageId, localId, deepLink?, data}}`, fired at the plan's floating `fireAt`.
    public init(plan: LocalPlan) {
        self.init(id: plan.id, title: plan.title, body: plan.body, presentation: plan.presentation,
                  userInfo: NotificationMessage(plan: plan).userInfo, fireAt: plan.fireAt)
    }

    /// The sound name (`nil`: silent).
    public var sound: String? {
        get { presentation.sound }
        set { presentation.sound = newValue }
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
