import Foundation

/// One push for one device, as Apple's HTTP/2 provider API takes it (see docs/contract.md §4).
///
/// Build silent plan and cancel pushes with ``background(deviceToken:topic:environment:expiration:payload:apnsId:)``
/// and fallback alerts with ``alert(deviceToken:topic:environment:collapseId:expiration:payload:apnsId:)``;
/// the memberwise initializer takes every header explicitly.
public struct PushNotification: Sendable, Hashable {
    /// Which APNs host serves the device: its token belongs to exactly one of them.
    public enum Environment: String, Sendable, Hashable, CaseIterable {
        /// `api.push.apple.com`: App Store, TestFlight and ad hoc builds.
        case production
        /// `api.sandbox.push.apple.com`: development builds.
        case sandbox
    }

    /// The `apns-push-type` header.
    public enum PushType: String, Sendable, Hashable {
        /// A silent push (`content-available`) that wakes the app: priority 5 only.
        case background
        /// A visible notification: priority 10 (immediate) or 5 (power-considerate).
        case alert
    }

    /// The device token, lowercase or uppercase hex (Apple's tokens are 32 bytes, 64 hex digits).
    public var deviceToken: String
    /// The `apns-topic` header: the app's bundle id.
    public var topic: String
    /// Production or sandbox: picks the default host.
    public var environment: Environment
    /// The `apns-push-type` header.
    public var pushType: PushType
    /// The `apns-priority` header: 10, 5 or 1. Background pushes must use 5.
    public var priority: Int
    /// The `apns-expiration` header (epoch seconds): until when APNs keeps retrying delivery.
    /// `nil` omits the header, so APNs tries once and does not store the push.
    public var expiration: Date?
    /// The `apns-collapse-id` header (at most 64 bytes of UTF-8), for example the fallback's
    /// idempotency key `<localId>/fallback`.
    public var collapseId: String?
    /// The `apns-id` header. When `nil`, the provider makes one and keeps it across retries;
    /// either way the result reports the id APNs answered with.
    public var apnsId: UUID?
    /// The JSON body, at most 4096 bytes.
    public var payload: Data

    /// Creates a notification with every header given explicitly.
    ///
    /// - Parameter priority: `nil` takes the push type's usual priority (background 5, alert 10).
    public init(deviceToken: String, topic: String, environment: Environment = .production,
                pushType: PushType, priority: Int? = nil, expiration: Date? = nil,
                collapseId: String? = nil, apnsId: UUID? = nil, payload: Data) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.environment = environment
        self.pushType = pushType
        self.priority = priority ?? (pushType == .background ? 5 : 10)
        self.expiration = expiration
        self.collapseId = collapseId
        self.apnsId = apnsId
        self.payload = payload
    }

    /// A silent push (plan or cancel): `apns-push-type: background`, `apns-priority: 5`,
    /// `apns-expiration` at `expiration`.
    public static func background(deviceToken: String, topic: String, environment: Environment,
                                  expiration: Date?, payload: Data, apnsId: UUID? = nil) -> PushNotification {
        PushNotification(deviceToken: deviceToken, topic: topic, environment: environment,
                         pushType: .background, priority: 5, expiration: expiration,
                         collapseId: nil, apnsId: apnsId, payload: payload)
    }

    /// An ordinary alert (the fallback): `apns-push-type: alert`, `apns-priority: 10`,
    /// `apns-collapse-id` set to the idempotency key.
    public static func alert(deviceToken: String, topic: String, environment: Environment,
                             collapseId: String?, expiration: Date? = nil, payload: Data,
                             apnsId: UUID? = nil) -> PushNotification {
        PushNotification(deviceToken: deviceToken, topic: topic, environment: environment,
                         pushType: .alert, priority: 10, expiration: expiration,
                         collapseId: collapseId, apnsId: apnsId, payload: payload)
    }
}
