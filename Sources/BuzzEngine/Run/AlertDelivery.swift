import BuzzKitWire
import Foundation

/// An alert push to the subscriber's devices: a fallback (``RunAction/sendFallback(_:)``)
/// or an ordinary push (``RunAction/sendPush(_:)``).
///
/// Send at most once per ``idempotencyKey`` (a unique key in the outbox or deliveries
/// table); ``headers`` carry it as `apns-collapse-id` too.
public struct AlertDelivery: Sendable, Hashable, Codable {
    /// The run.
    public let runId: String
    /// The send step.
    public let stepName: String
    /// The local window this fallback replaces; `nil` for an ordinary push.
    public let localId: String?
    /// The message id.
    public let messageId: String
    /// At most 64 bytes: `<localId>/fallback` or `<runId>/<stepName>/push`, or the SHA-256
    /// hex of a longer key.
    public let idempotencyKey: String
    /// Why a fallback is sent (the summary's `fallback.reason`); `nil` for an ordinary push.
    public let reason: String?
    /// `apns-push-type: alert`, `apns-priority: 10`, `apns-collapse-id: <idempotencyKey>`,
    /// `apns-expiration: <expiresAt>`.
    public let headers: APNsHeaders
    /// The typed body.
    public let payload: AlertPayload
    /// The JSON body, at most 4096 bytes.
    public let body: String

    /// A delivery from its parts; `expiresAt` ends its lifetime (DESIGN §4c: the moment plus
    /// the send's `expiresAfter`).
    public init(runId: String, stepName: String, idempotencyKey: String, reason: String?,
                encoded: EncodedPayload<AlertPayload>, expiresAt: Date?) {
        self.runId = runId
        self.stepName = stepName
        self.localId = encoded.payload.localId
        self.messageId = encoded.payload.messageId
        self.idempotencyKey = idempotencyKey
        self.reason = reason
        self.headers = .alert(collapseId: idempotencyKey, expiresAt: expiresAt.map { Int64($0.timeIntervalSince1970.rounded(.up)) })
        self.payload = encoded.payload
        self.body = encoded.body
    }

    /// Until when the alert is worth showing (its `apns-expiration`); nil for an alert made
    /// before lifetimes existed.
    public var expiresAt: Date? { headers.expiration.map { Date(timeIntervalSince1970: Double($0)) } }
}
