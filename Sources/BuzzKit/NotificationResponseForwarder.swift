#if canImport(UserNotifications)
import BuzzKitWire
import Foundation
@preconcurrency import UserNotifications

/// The `UNUserNotificationCenter` delegate installed by automatic push handling: forwards taps
/// to the SDK (`$push.opened`, deep link) and lets it see alerts shown in the foreground
/// (a fallback then removes its pending local copy).
public final class NotificationResponseForwarder: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
    private let target = Locked<WeakHandler>(WeakHandler())

    private struct WeakHandler {
        weak var handler: (any PushEventHandling)?
    }

    /// Forwards to `handler` (held weakly) from now on.
    public func setHandler(_ handler: (any PushEventHandling)?) {
        target.withLock { $0.handler = handler }
    }

    /// A tap: forwards the user info.
    public func userNotificationCenter(_ center: UNUserNotificationCenter,
                                       didReceive response: UNNotificationResponse) async {
        guard response.actionIdentifier == UNNotificationDefaultActionIdentifier,
              let userInfo = try? JSONValue.members(userInfo: response.notification.request.content.userInfo)
        else { return }
        await target.current.handler?.handleNotificationOpen(userInfo: userInfo)
    }

    /// A notification about to be shown in the foreground: a remote BuzzKit alert goes to the
    /// SDK first; everything is shown.
    public func userNotificationCenter(_ center: UNUserNotificationCenter,
                                       willPresent notification: UNNotification) async -> UNNotificationPresentationOptions {
        if notification.request.trigger is UNPushNotificationTrigger,
           let payload = try? JSONValue.members(userInfo: notification.request.content.userInfo) {
            _ = await target.current.handler?.handleRemoteNotification(payload: payload)
        }
        return [.banner, .list, .sound]
    }
}
#endif
