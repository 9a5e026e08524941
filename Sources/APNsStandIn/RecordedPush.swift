import Foundation

/// A push the stand-in accepted (answered 200): what a simulated device would receive.
public struct RecordedPush: Sendable, Equatable {
    /// The device token from the path, lowercase hex.
    public var deviceToken: String
    /// `apns-topic`.
    public var topic: String
    /// `apns-push-type` (`background`, `alert`, …).
    public var pushType: String
    /// `apns-priority` (10 when the header was absent, as at Apple).
    public var priority: Int
    /// `apns-expiration` in epoch seconds, if sent.
    public var expiration: Int?
    /// `apns-collapse-id`, if sent.
    public var collapseId: String?
    /// The `apns-id` answered (the request's, or a new one).
    public var apnsId: UUID
    /// The `kid` of the provider token that authorised it.
    public var keyID: String
    /// Every request header (pseudo-headers included), names lowercase; the last of repeats.
    public var headers: [String: String]
    /// The JSON body.
    public var payload: Data
    /// When the stand-in accepted it (its clock).
    public var receivedAt: Date
    /// Which TLS connection carried it (1 for the first the stand-in accepted).
    public var connection: Int

    /// True for a silent push (`background`), the kind that carries plans and cancels.
    public var isSilent: Bool { pushType == "background" }

    /// The body as a JSON object, or `nil` if it is not one.
    public var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any]
    }
}
