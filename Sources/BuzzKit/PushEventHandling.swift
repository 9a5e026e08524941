import BuzzKitWire
import Foundation

/// Receives the platform's push events: implemented by ``BuzzKitClient``, called by a
/// ``PushEventSource`` when automatic push handling is on.
public protocol PushEventHandling: AnyObject, Sendable {
    /// A remote notification reached the app (a silent push, or an alert the app sees) at
    /// `receivedAt` (when iOS handed it over; `nil`: now). The wake's budget counts from then.
    func handleRemoteNotification(payload: [String: JSONValue], receivedAt: Date?) async -> PushOutcome
    /// The person tapped a notification with this user info.
    func handleNotificationOpen(userInfo: [String: JSONValue]) async
    /// The person chose the button `actionId` of the notification `request` (as shown).
    func handleNotificationAction(_ actionId: String, on request: NotificationRequest, receivedAt: Date?) async
    /// The platform issued (or renewed) the device token, in hex.
    func handleDeviceToken(_ hexToken: String) async
}
