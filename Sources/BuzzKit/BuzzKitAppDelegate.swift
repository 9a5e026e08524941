#if canImport(UIKit) && canImport(UserNotifications)
import UIKit

/// An app delegate base class that hands silent pushes and the device token to
/// ``ApplicationPushEventSource/shared``: the app side of automatic push handling. Subclass it
/// and call `super` from overrides.
@available(iOSApplicationExtension, unavailable)
open class BuzzKitAppDelegate: UIResponder, UIApplicationDelegate {
    /// Forwards the device token.
    open func application(_ application: UIApplication,
                          didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        Task { await ApplicationPushEventSource.shared.receive(deviceToken: deviceToken) }
    }

    /// Forwards a remote notification and reports the outcome.
    open func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any])
        async -> UIBackgroundFetchResult {
        await ApplicationPushEventSource.shared.receive(userInfo: userInfo)
    }
}
#endif
