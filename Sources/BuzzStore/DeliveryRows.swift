import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The part of ``StoreTransaction`` for pushes (claimed, sent and answered) and what people did
/// with them (opens, buttons).
public protocol DeliveryRows {
    /// Claims (idempotency key, device) pairs for sending (see ``DeliveryClaim``), in the
    /// order given, holding their row locks until the transaction ends, so a concurrent
    /// duplicate waits and then finds them done. Returns one claim per request.
    func claimDeliveries(_ requests: [DeliveryRequest], at: Date) throws -> [DeliveryClaim]
    /// Records sends made without a claim, with their answers: alerts of runs the transaction
    /// holds locked (``SendProcessor``). A pair already recorded keeps its row unless that
    /// send failed.
    func recordDeliveries(_ deliveries: [DeliveryResult], at: Date) throws
    /// Records the answers of sends.
    func finishDeliveries(_ outcomes: [DeliveryResult], at: Date) throws
    /// Records a `$push.opened`.
    func recordOpen(tenantId: String, subscriberId: String, messageId: String, at: Date) throws
    /// Records a `$push.action` (a button chosen at `at`), for a message sent for one of the
    /// subscriber's runs only.
    func recordAction(tenantId: String, subscriberId: String, messageId: String, actionId: String, at: Date) throws
    /// The tenant's pushes sent and failed, and its windows decided, per minute from `since`
    /// to `until` (minutes with nothing are missing; ``MinuteActivity/series(_:since:until:)``
    /// fills them in).
    func minuteActivity(tenantId: String, since: Date, until: Date) throws -> [MinuteActivity]
}
