#if canImport(UIKit) && canImport(UserNotifications) && !NO_APPLE_FRAMEWORKS
import UIKit

/// An app delegate base class that hands silent pushes and the device token to
/// ``ApplicationPushEventSource/shared``. No longer needed: `BuzzKit.configure` hooks the app
/// delegate itself (``AppDelegateHook``), which leaves a subclass of this one alone. Kept so
/// apps written against it keep working; call `super` from overrides.
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
