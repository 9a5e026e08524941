import BuzzKitWire

/// A tapped BuzzKit notification, handed to the app's open handler after `$push.opened` was
/// tracked.
public struct OpenedNotification: Sendable, Hashable {
    /// The message it carried.
    public var message: NotificationMessage
    /// Local (a plan) or remote (a fallback or ordinary push).
    public var origin: DeliveredNotification.Origin

    /// An open from its parts.
    public init(message: NotificationMessage, origin: DeliveredNotification.Origin) {
        self.message = message
        self.origin = origin
    }

    /// Reads a tapped notification's user info: a remote payload carries `aps`, a local
    /// request's user info does not. `nil` when it is not a BuzzKit notification.
    public init?(userInfo: [String: JSONValue]) {
        guard let message = NotificationMessage(userInfo: userInfo) else { return nil }
        self.init(message: message, origin: userInfo["aps"] == nil ? .local : .remote)
    }

    /// The deep link to route, if any.
    public var deepLink: String? { message.deepLink }
}
