#if canImport(UserNotifications) && canImport(Security) && !NO_APPLE_FRAMEWORKS
import BuzzKitWire
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
        // The budget for a silent push: a request never waits longer than the answer to iOS.
        let transport = URLSessionTransport(timeout: configuration.backgroundBudget)
        let ports = BuzzKitPorts(notificationCenter: UserNotificationCenterScheduler(), clock: SystemClock(),
                                 store: store, secrets: KeychainKeyValueStore(), transport: transport)
        #if canImport(UIKit)
        let client = try ApplicationEnvironment.system.makeClient(configuration, ports: ports)
        #else
        let client = try BuzzKitClient(configuration: configuration, ports: ports)
        #endif
        makeShared(client)
        return client
    }
}
#endif
