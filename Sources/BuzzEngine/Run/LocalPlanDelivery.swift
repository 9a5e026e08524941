import BuzzKitWire
import Foundation

/// A silent plan push to send to every device of the subscriber (``RunAction/sendLocalPlan(_:)``).
///
/// Send ``body`` with ``headers`` (plus `apns-topic`) to each device, then report the count
/// with ``RunInput/planDelivered(localId:deviceCount:)``. Deduplicate on ``localId``.
public struct LocalPlanDelivery: Sendable, Hashable, Codable {
    /// The run.
    public let runId: String
    /// The local send step.
    public let stepName: String
    /// `<runId>/<stepName>`.
    public let localId: String
    /// The plan's message id.
    public let messageId: String
    /// The moment (also `apns-expiration`).
    public let moment: Date
    /// `apns-push-type: background`, `apns-priority: 5`, `apns-expiration: <moment>`.
    public let headers: APNsHeaders
    /// The typed body.
    public let payload: SilentPlanPayload
    /// The JSON body, at most 4096 bytes.
    public let body: String

    /// A delivery from its parts.
    public init(runId: String, stepName: String, moment: Date, encoded: EncodedPayload<SilentPlanPayload>) {
        self.runId = runId
        self.stepName = stepName
        self.localId = encoded.payload.local.id
        self.messageId = encoded.payload.local.messageId
        self.moment = moment
        self.headers = .plan(expiresAt: Int64(moment.timeIntervalSince1970.rounded(.up)))
        self.payload = encoded.payload
        self.body = encoded.body
    }

    /// The stored form (``init(json:path:)`` and ``write(to:)`` in `*+JSON.swift`: one mapping for Codable too).
    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }
}
