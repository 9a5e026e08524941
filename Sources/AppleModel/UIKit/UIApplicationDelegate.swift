// As Apple's framework, the model brings Foundation with it.
@_exported import Foundation

/// Model of `UIResponder`, the base of `UIApplication` and of app delegates.
@MainActor
open class UIResponder: NSObject {
    nonisolated override public init() { super.init() }
}

/// Model of `UIApplicationDelegate`: the callbacks of the app's life and its pushes.
///
/// iOS's requirements are optional Objective-C methods; Swift on Linux has none, so each has a
/// default doing what iOS does when the delegate lacks it: no token callback, and a silent push
/// answered `.noData` (iOS bridges the `fetchCompletionHandler:` form and the `async` form to
/// one Objective-C method; the model's default for the first calls the second, whose default
/// answers `.noData`).
@MainActor
public protocol UIApplicationDelegate: AnyObject {
    /// Launching is done.
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
    /// APNs issued the device token.
    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data)
    /// Registration for remote notifications failed.
    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error)
    /// A remote notification arrived; call the completion within 30 s.
    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void)
    /// The `async` form of the same callback.
    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any]) async -> UIBackgroundFetchResult
}

extension UIApplicationDelegate {
    public func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        true
    }

    public func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {}

    public func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {}

    public func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        nonisolated(unsafe) let payload = userInfo
        nonisolated(unsafe) let completion = completionHandler
        Task { @MainActor in
            completion(await self.application(application, didReceiveRemoteNotification: payload))
        }
    }

    public func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any]) async -> UIBackgroundFetchResult {
        .noData
    }
}

/// Model of `UIBackgroundFetchResult`.
public enum UIBackgroundFetchResult: UInt, Sendable {
    case newData = 0
    case noData = 1
    case failed = 2
}

/// Model of `UIBackgroundTaskIdentifier`.
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// No task.
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}
