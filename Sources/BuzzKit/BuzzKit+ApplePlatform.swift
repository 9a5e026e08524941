#if canImport(UserNotifications)
import Foundation

extension BuzzKit {
    /// Configures the shared instance with the platform's ports: `UNUserNotificationCenter`,
    /// the system clock, a store in Application Support/BuzzKit (the subscriber token in the
    /// Keychain), `URLSession`, and (with UIKit)
    /// the app's push events and lifecycle.
    ///
    /// Call it from `application(_:didFinishLaunchingWithOptions:)`, on the main thread: the
    /// notification delegate is installed before it returns, so a tap or a silent push that
    /// launched the app is not lost.
    ///
    /// Not in app extensions (no `UIApplication`, no pushes): there, use
    /// ``configure(_:ports:)`` with a ``FileKeyValueStore`` in the app group's container.
    @available(iOSApplicationExtension, unavailable)
    @discardableResult
    public static func configure(_ configuration: Configuration) throws -> BuzzKitClient {
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let store = try FileKeyValueStore(directory: support.appendingPathComponent("BuzzKit", isDirectory: true))
        #if canImport(UIKit)
        let pushEvents: (any PushEventSource)? = ApplicationPushEventSource.shared
        #else
        let pushEvents: (any PushEventSource)? = nil
        #endif
        // The budget for a silent push: a request never waits longer than the answer to iOS.
        let transport = URLSessionTransport(timeout: configuration.backgroundBudget)
        let ports = BuzzKitPorts(notificationCenter: UserNotificationCenterScheduler(), clock: SystemClock(),
                                 store: store, secrets: KeychainKeyValueStore(), transport: transport, pushEvents: pushEvents)
        let client = try configure(configuration, ports: ports)
        #if canImport(UIKit)
        lifecycle.withLock { $0 = ApplicationLifecycleObserver(client: client) }
        // Automatic handling: the app delegate's push callbacks come to BuzzKit with no code
        // in the app (AppDelegateHook). `configure` runs on the main thread at launch.
        if configuration.automaticPushHandling {
            if Thread.isMainThread {
                MainActor.assumeIsolated { AppDelegateHook.install() }
            } else {
                Task { @MainActor in AppDelegateHook.install() }
            }
        }
        #endif
        return client
    }

    #if canImport(UIKit)
    @available(iOSApplicationExtension, unavailable)
    private static let lifecycle = Locked<ApplicationLifecycleObserver?>(nil)
    #endif
}
#endif
