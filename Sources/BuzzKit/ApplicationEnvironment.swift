#if canImport(UIKit) && canImport(UserNotifications) && !NO_APPLE_FRAMEWORKS
import Foundation
import Network
import UIKit
@preconcurrency import UserNotifications

/// The app's process as BuzzKit's Apple layer meets it: the `UIApplication`, the notification
/// center, where UIKit and Foundation post their notifications, the network's path monitor,
/// and the push events source that ties them to the SDK.
///
/// An app has one, ``system``, which ``BuzzKit/configure(_:)`` uses. The device simulator makes
/// one per simulated phone over its model of UIKit and UserNotifications (docs/apple-model.md),
/// so thousands of phones run, in one process, the very code an app ships.
@available(iOSApplicationExtension, unavailable)
public struct ApplicationEnvironment: @unchecked Sendable {
    /// The app's push events (and, through them, its application and notification center).
    public let pushEvents: ApplicationPushEventSource
    /// Where UIKit posts `didBecomeActive`, `didEnterBackground` and the time changes
    /// (`NotificationCenter.default` on iOS).
    public let notifications: NotificationCenter
    /// Makes the monitor that reports the network coming back.
    public let pathMonitor: @Sendable () -> NWPathMonitor

    /// The app's own: `UIApplication.shared`, `UNUserNotificationCenter.current()`,
    /// `NotificationCenter.default`, a new `NWPathMonitor`.
    public static let system = ApplicationEnvironment(pushEvents: .shared, notifications: .default, pathMonitor: { NWPathMonitor() })

    /// An environment from its parts.
    public init(pushEvents: ApplicationPushEventSource, notifications: NotificationCenter,
                pathMonitor: @escaping @Sendable () -> NWPathMonitor) {
        self.pushEvents = pushEvents
        self.notifications = notifications
        self.pathMonitor = pathMonitor
    }

    /// A client over `ports` (their notification center should be a
    /// ``UserNotificationCenterScheduler`` over this environment's center), wired to this
    /// environment as ``BuzzKit/configure(_:)`` wires the app's: the push events source
    /// attached (the notification delegate installed, the device token asked for), the
    /// lifecycle observed, and with ``Configuration/automaticPushHandling`` the app delegate
    /// hooked. Not started: call ``BuzzKitClient/start()``.
    public func makeClient(_ configuration: Configuration, ports: BuzzKitPorts) throws -> BuzzKitClient {
        var ports = ports
        ports.pushEvents = pushEvents
        let client = try BuzzKitClient(configuration: configuration, ports: ports)
        client.attachToPushEvents()
        pushEvents.lifecycle.withLock { $0 = ApplicationLifecycleObserver(client: client, environment: self) }
        // Automatic handling: the app delegate's push callbacks come to BuzzKit with no code
        // in the app (AppDelegateHook). `configure` runs on the main thread at launch.
        if configuration.automaticPushHandling {
            let environment = self
            if Thread.isMainThread {
                MainActor.assumeIsolated { AppDelegateHook.install(in: environment) }
            } else {
                Task { @MainActor in AppDelegateHook.install(in: environment) }
            }
        }
        return client
    }
}
#endif
