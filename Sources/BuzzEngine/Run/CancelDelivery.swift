import BuzzKitWire

/// A cancel push to every device of the subscriber (``RunAction/sendCancel(_:)``): removes
/// every pending notification the run scheduled. Deduplicate on ``runId``.
public struct CancelDelivery: Sendable, Hashable, Codable {
    /// The run (also the id prefix devices remove).
    public let runId: String
    /// `apns-push-type: background`, `apns-priority: 5`.
    public let headers: APNsHeaders
    /// The typed body.
    public let payload: CancelPayload
    /// The JSON body.
    public let body: String

    /// A delivery from its parts.
    public init(runId: String, encoded: EncodedPayload<CancelPayload>) {
        self.runId = runId
        self.headers = .cancel
        self.payload = encoded.payload
        self.body = encoded.body
    }
}
