#if canImport(UserNotifications)
import Foundation

extension BuzzKit {
    /// Configures the shared instance with the platform's ports: `UNUserNotificationCenter`,
    /// the system clock, a store in Application Support/BuzzKit, `URLSession`, and (with UIKit)
    /// the app's push events.
    @discardableResult
    public static func configure(_ configuration: Configuration) throws -> BuzzKitClient {
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let store = try FileKeyValueStore(directory: support.appendingPathComponent("BuzzKit", isDirectory: true))
        #if canImport(UIKit)
        let pushEvents: (any PushEventSource)? = ApplicationPushEventSource.shared
        #else
        let pushEvents: (any PushEventSource)? = nil
        #endif
        let ports = BuzzKitPorts(notificationCenter: UserNotificationCenterScheduler(), clock: SystemClock(),
                                 store: store, transport: URLSessionTransport(), pushEvents: pushEvents)
        return try configure(configuration, ports: ports)
    }
}
#endif
