import BuzzKitWire
import Foundation

/// The app-facing facade: static calls over one shared ``BuzzKitClient``.
///
/// ```swift
/// try BuzzKit.configure(configuration, ports: ports)   // on Apple platforms: configure(configuration)
/// try await BuzzKit.track("workout.completed", properties: ["workoutId": "w1"])
/// ```
///
/// Everything here forwards to ``shared``; code that needs several independent instances
/// (the device simulator) creates ``BuzzKitClient`` values directly.
public enum BuzzKit {
    /// What handling a remote notification changed (`.newData`, `.noData`, `.failed`).
    public typealias Outcome = PushOutcome

    private static let instance = Locked<BuzzKitClient?>(nil)

    /// The shared instance, once configured.
    public static var shared: BuzzKitClient? { instance.current }

    /// Creates the shared instance over `ports` and starts it in the background
    /// (registration, reconciliation, flushing what earlier launches queued). A second call
    /// replaces the instance; the old one is shut down.
    ///
    /// - Throws: ``BuzzKitError/Code/invalidConfiguration`` for unusable settings.
    @discardableResult
    public static func configure(_ configuration: Configuration, ports: BuzzKitPorts) throws -> BuzzKitClient {
        let client = try BuzzKitClient(configuration: configuration, ports: ports)
        let previous = instance.withLock { current -> BuzzKitClient? in
            defer { current = client }
            return current
        }
        Task {
            await previous?.shutdown()
            await client.start()
        }
        return client
    }

    /// Tracks an event, see ``BuzzKitClient/track(_:properties:)``.
    ///
    /// - Throws: ``BuzzKitError/Code/notConfigured`` before ``configure(_:ports:)``, or
    ///   ``BuzzKitError/Code/invalidEvent``.
    public static func track(_ name: String, properties: [String: JSONValue] = [:]) async throws {
        try await client(for: "track").track(name, properties: properties)
    }

    /// Forwards a remote notification (for `automaticPushHandling = false`), see
    /// ``BuzzKitClient/handleRemoteNotification(payload:)``. `.noData` before configuration.
    nonisolated(nonsending) public static func didReceiveRemoteNotification(userInfo: [AnyHashable: Any]) async -> Outcome {
        guard let client = shared else { return .noData }
        return await client.didReceiveRemoteNotification(userInfo: userInfo)
    }

    /// Forwards a tap, see ``BuzzKitClient/handleNotificationOpen(userInfo:)``.
    nonisolated(nonsending) public static func didOpenNotification(userInfo: [AnyHashable: Any]) async {
        await shared?.didOpenNotification(userInfo: userInfo)
    }

    /// Forwards the device token iOS issued, see ``BuzzKitClient/setDeviceToken(_:)-(Data)``.
    public static func setDeviceToken(_ token: Data) async throws {
        try await client(for: "setDeviceToken").setDeviceToken(token)
    }

    /// Sets the handler for opened notifications (deep-link routing).
    public static func setOpenHandler(_ handler: (@Sendable (OpenedNotification) async -> Void)?) async throws {
        try await client(for: "setOpenHandler").setOpenHandler(handler)
    }

    /// Flushes queued events now (backoff permitting).
    public static func flush() async {
        await shared?.flush()
    }

    private static func client(for operation: String) throws -> BuzzKitClient {
        guard let client = shared else {
            throw BuzzKitError(.notConfigured, context: operation, message: "call BuzzKit.configure first")
        }
        return client
    }
}
