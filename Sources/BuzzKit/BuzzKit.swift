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
    /// Lets a push or tap the app forwards before ``configure(_:ports:)`` (a cold launch)
    /// wait for the instance instead of being dropped.
    static let launchRelay = PushEventRelay(waitLimit: 10)

    /// The shared instance, once configured.
    public static var shared: BuzzKitClient? { instance.current }

    /// Creates the shared instance over `ports`, attaches it to the platform's push events
    /// before returning (call it from `application(_:didFinishLaunchingWithOptions:)`, so a
    /// push or a tap that launched the app reaches it), and starts it in the background
    /// (registration, reconciliation, sync, flushing what earlier launches queued). A second
    /// call replaces the instance; the old one is shut down.
    ///
    /// - Throws: ``BuzzKitError/Code/invalidConfiguration`` for unusable settings.
    @discardableResult
    public static func configure(_ configuration: Configuration, ports: BuzzKitPorts) throws -> BuzzKitClient {
        let client = try BuzzKitClient(configuration: configuration, ports: ports)
        client.attachToPushEvents()
        makeShared(client)
        return client
    }

    /// Makes `client` the shared instance (a tap or push forwarded before `configure` waits for
    /// it), shuts the previous one down and starts it.
    static func makeShared(_ client: BuzzKitClient) {
        launchRelay.attach(client)
        let previous = instance.withLock { current -> BuzzKitClient? in
            defer { current = client }
            return current
        }
        Task {
            await previous?.shutdown()
            await client.start()
        }
    }

    /// Tracks an event, see ``BuzzKitClient/track(_:properties:)``.
    ///
    /// - Throws: ``BuzzKitError/Code/notConfigured`` before ``configure(_:ports:)``, or
    ///   ``BuzzKitError/Code/invalidEvent``.
    public static func track(_ name: String, properties: [String: JSONValue] = [:]) async throws {
        try await client(for: "track").track(name, properties: properties)
    }

    /// Forwards a remote notification (for `automaticPushHandling = false`), see
    /// ``BuzzKitClient/handleRemoteNotification(payload:)``. A push that launched the app
    /// before ``configure(_:ports:)`` waits for it (up to 10 s), then `.noData`.
    nonisolated(nonsending) public static func didReceiveRemoteNotification(userInfo: [AnyHashable: Any]) async -> Outcome {
        let receivedAt = Date()  // the wake's budget counts from here, the wait for configure included
        guard let payload = try? JSONValue.members(userInfo: userInfo) else { return .failed }
        return await launchRelay.deliverRemoteNotification(payload: payload, receivedAt: receivedAt) ?? .noData
    }

    /// Forwards a tap, see ``BuzzKitClient/handleNotificationOpen(userInfo:)``; a tap that
    /// launched the app before ``configure(_:ports:)`` waits for it.
    nonisolated(nonsending) public static func didOpenNotification(userInfo: [AnyHashable: Any]) async {
        guard let members = try? JSONValue.members(userInfo: userInfo) else { return }
        await launchRelay.open(userInfo: members)
    }

    /// Forwards the device token iOS issued, see ``BuzzKitClient/setDeviceToken(_:)-(Data)``.
    public static func setDeviceToken(_ token: Data) async throws {
        try await client(for: "setDeviceToken").setDeviceToken(token)
    }

    /// Sets the handler for opened notifications (deep-link routing).
    public static func setOpenHandler(_ handler: (@Sendable (OpenedNotification) async -> Void)?) async throws {
        try await client(for: "setOpenHandler").setOpenHandler(handler)
    }

    /// Signs a subscriber in, see ``BuzzKitClient/login(subscriberId:subscriberToken:)``.
    public static func login(subscriberId: String, subscriberToken: SubscriberTokenProvider) async throws {
        try await client(for: "login").login(subscriberId: subscriberId, subscriberToken: subscriberToken)
    }

    /// Signs the subscriber out and removes their notifications, see ``BuzzKitClient/logout()``.
    public static func logout() async {
        await shared?.logout()
    }

    /// Asks for notification permission and reports it, see
    /// ``BuzzKitClient/requestNotificationPermission()``.
    @discardableResult
    public static func requestNotificationPermission() async throws -> NotificationAuthorization {
        try await client(for: "requestNotificationPermission").requestNotificationPermission()
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
