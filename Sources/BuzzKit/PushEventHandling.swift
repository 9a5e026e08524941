import BuzzKitWire

/// Receives the platform's push events: implemented by ``BuzzKitClient``, called by a
/// ``PushEventSource`` when automatic push handling is on.
public protocol PushEventHandling: AnyObject, Sendable {
    /// A remote notification reached the app (a silent push, or an alert the app sees).
    func handleRemoteNotification(payload: [String: JSONValue]) async -> PushOutcome
    /// The person tapped a notification with this user info.
    func handleNotificationOpen(userInfo: [String: JSONValue]) async
    /// The platform issued (or renewed) the device token, in hex.
    func handleDeviceToken(_ hexToken: String) async
}
