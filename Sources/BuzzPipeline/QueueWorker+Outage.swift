import AMQPModel
import BuzzServerCore
import BuzzStore
import Foundation

extension QueueWorker {
    /// Header carrying how many delivery attempts a message used before it was returned after
    /// an outage (its copy starts again at the broker's `x-delivery-count` 0).
    static let priorFailuresHeader = "x-buzzkit-prior-failures"
    /// Header carrying an event's original routing key (`<tenantId>.<event>`) on its copy,
    /// which goes straight to the queue through the default exchange.
    static let originalRoutingKeyHeader = "x-buzzkit-routing-key"
    /// Header counting how many times outages sent the message back (for operators).
    static let outageReturnsHeader = "x-buzzkit-outage-returns"

    /// The most attempts a header is believed to count, so no value can overflow a sum.
    static let attemptCountCap = 1_000

    /// Attempts a message used before outages sent it back as a copy (0…``attemptCountCap``).
    static func priorFailures(_ delivery: any BrokerDelivery) -> Int {
        priorFailures(headers: delivery.headers, isCopy: delivery.exchange.isEmpty)
    }

    /// Attempts a message has used: those before outage returns plus the broker's count of
    /// this copy's deliveries.
    static func attemptsUsed(_ delivery: any BrokerDelivery) -> Int {
        attemptsUsed(headers: delivery.headers, isCopy: delivery.exchange.isEmpty)
    }

    /// What a publisher sets is not trusted (DESIGN §4c): the `x-buzzkit-*` counts are read
    /// only on a worker's own copy (`isCopy`: it came through the default exchange, which the
    /// broker's permissions keep for BuzzKit's own user), never on a message that came through
    /// an events exchange; and every count is clamped to 0…``attemptCountCap``.
    static func priorFailures(headers: [String: AMQPFieldValue], isCopy: Bool) -> Int {
        isCopy ? clampedCount(headers[priorFailuresHeader]?.intValue) : 0
    }

    /// See ``priorFailures(headers:isCopy:)``; `x-delivery-count` is clamped too.
    static func attemptsUsed(headers: [String: AMQPFieldValue], isCopy: Bool) -> Int {
        priorFailures(headers: headers, isCopy: isCopy) + clampedCount(headers["x-delivery-count"]?.intValue)
    }

    static func clampedCount(_ value: Int64?) -> Int {
        Int(min(max(value ?? 0, 0), Int64(attemptCountCap)))
    }

    /// A message held through a whole outage hold (PostgreSQL or RabbitMQ unreachable) goes
    /// back to its queue without using up a delivery attempt.
    ///
    /// A quorum queue counts every requeue toward its delivery limit, so requeueing held
    /// messages would dead-letter the queues' contents after about ten hold periods of one
    /// outage (twenty minutes with the default two-minute hold). Instead the worker publishes
    /// a copy to the same queue, with the same id and headers plus the attempts the original
    /// had used, waits for the broker's confirm, and only then acks the original. If the copy
    /// cannot be confirmed (the broker is down too) the original is requeued: the broker then
    /// holds it, and its connection, not the outage, decides.
    ///
    /// An event's copy goes straight to its queue, not through the events exchange (which
    /// might bind the same key to another queue too), with its routing key in a header.
    func returnAfterOutage(_ delivery: any BrokerDelivery, error: Error) {
        var headers = delivery.headers
        headers.removeValue(forKey: "x-delivery-count")
        headers[Self.priorFailuresHeader] = .int(Int64(Self.attemptsUsed(delivery)))
        let returns = delivery.exchange.isEmpty ? Self.clampedCount(delivery.headers[Self.outageReturnsHeader]?.intValue) : 0
        headers[Self.outageReturnsHeader] = .int(Int64(returns + 1))
        if republish(delivery, to: context.topology.name(queue), headers: headers) {
            count("outage_returned", 1)
            context.log.warning("outage outlasted the hold; message returned to its queue without using an attempt",
                                ["queue": queue.rawValue, "message_id": delivery.messageId ?? "", "error": "\(error)"])
        } else {
            delivery.nack(requeue: true)
            context.log.warning("outage outlasted the hold and the broker did not take the copy; message requeued",
                                ["queue": queue.rawValue, "message_id": delivery.messageId ?? "", "error": "\(error)"])
        }
    }
}
