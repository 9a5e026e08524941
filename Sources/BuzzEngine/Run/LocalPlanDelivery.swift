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

    private enum CodingKeys: String, CodingKey { case runId, stepName, localId, messageId, moment, headers, payload, body }

    /// Decodes the stored form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        runId = try container.decode(String.self, forKey: .runId)
        stepName = try container.decode(String.self, forKey: .stepName)
        localId = try container.decode(String.self, forKey: .localId)
        messageId = try container.decode(String.self, forKey: .messageId)
        moment = try container.decodeInstant(forKey: .moment)
        headers = try container.decode(APNsHeaders.self, forKey: .headers)
        payload = try container.decode(SilentPlanPayload.self, forKey: .payload)
        body = try container.decode(String.self, forKey: .body)
    }

    /// Encodes the stored form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(runId, forKey: .runId)
        try container.encode(stepName, forKey: .stepName)
        try container.encode(localId, forKey: .localId)
        try container.encode(messageId, forKey: .messageId)
        try container.encodeInstant(moment, forKey: .moment)
        try container.encode(headers, forKey: .headers)
        try container.encode(payload, forKey: .payload)
        try container.encode(body, forKey: .body)
    }
}
