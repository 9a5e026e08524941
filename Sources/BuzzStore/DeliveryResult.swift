import Foundation

/// What came of one push to one device (``StoreTransaction/recordDeliveries(_:at:)``, or
/// ``StoreTransaction/finishDeliveries(_:at:)`` for a pair claimed before the send): the
/// delivery row's key and kind, and APNs' answer.
public struct DeliveryResult: Sendable, Equatable {
    public var request: DeliveryRequest
    public var outcome: DeliveryOutcome

    public init(_ request: DeliveryRequest, _ outcome: DeliveryOutcome) {
        self.request = request
        self.outcome = outcome
    }
}
