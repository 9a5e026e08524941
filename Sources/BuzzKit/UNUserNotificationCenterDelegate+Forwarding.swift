#if canImport(UserNotifications) && !NO_APPLE_FRAMEWORKS
import Foundation
@preconcurrency import UserNotifications

/// Calling an app's notification delegate method only if it has it: iOS's requirements are
/// optional Objective-C methods (`responds(to:)`, then the call). The Apple model on Linux has no
/// optional requirements; its protocol gives each method iOS's behaviour for a missing one as a
/// default, so there the call is made directly. Each returns whether it called the delegate.
extension UNUserNotificationCenterDelegate {
    func forwardDidReceive(_ center: UNUserNotificationCenter, _ response: UNNotificationResponse,
                           _ completionHandler: @escaping @Sendable () -> Void) -> Bool {
        #if canImport(ObjectiveC)
        guard responds(to: #selector(UNUserNotificationCenterDelegate.userNotificationCenter(_:didReceive:withCompletionHandler:))) else {
            return false
        }
        userNotificationCenter?(center, didReceive: response, withCompletionHandler: completionHandler)
        #else
        userNotificationCenter(center, didReceive: response, withCompletionHandler: completionHandler)
        #endif
        return true
    }

    func forwardWillPresent(_ center: UNUserNotificationCenter, _ notification: UNNotification,
                            _ completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void) -> Bool {
        #if canImport(ObjectiveC)
        guard responds(to: #selector(UNUserNotificationCenterDelegate.userNotificationCenter(_:willPresent:withCompletionHandler:))) else {
            return false
        }
        userNotificationCenter?(center, willPresent: notification, withCompletionHandler: completionHandler)
        #else
        userNotificationCenter(center, willPresent: notification, withCompletionHandler: completionHandler)
        #endif
        return true
    }

    func forwardOpenSettings(_ center: UNUserNotificationCenter, _ notification: UNNotification?) {
        #if canImport(ObjectiveC)
        userNotificationCenter?(center, openSettingsFor: notification)
        #else
        userNotificationCenter(center, openSettingsFor: notification)
        #endif
    }
}
#endif
