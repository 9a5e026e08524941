import Foundation
import Synchronization

/// A message handed to a consumer. Settle it exactly once with ``ack()``, ``nack(requeue:)``
/// or ``reject(requeue:)``, from any thread; later calls are ignored.
public final class AMQPDelivery: @unchecked Sendable {
    public let body: Data
    public let exchange: String
    public let routingKey: String
    public let headers: [String: AMQPFieldValue]
    public let messageId: String?
    public let contentType: String?
    /// True when the broker delivered this message before (to this or another consumer).
    public let redelivered: Bool
    public let deliveryTag: UInt64
    /// The queue it came from.
    public let queue: String
    let generation: Int
    private weak var consumer: AMQPConsumer?
    private let settled = Atomic<Bool>(false)

    init(raw: AMQPRawDelivery, queue: String, generation: Int, consumer: AMQPConsumer) {
        body = raw.body
        exchange = raw.exchange
        routingKey = raw.routingKey
        headers = raw.headers
        messageId = raw.messageId
        contentType = raw.contentType
        redelivered = raw.redelivered
        deliveryTag = raw.deliveryTag
        self.queue = queue
        self.generation = generation
        self.consumer = consumer
    }

    /// How many times a quorum queue delivered this message before (`x-delivery-count`).
    public var deliveryCount: Int { Int(headers["x-delivery-count"]?.intValue ?? 0) }

    /// Done: the broker forgets the message.
    public func ack() { settle(.ack) }

    /// Failed: requeue it (counts toward the queue's delivery limit) or drop / dead-letter it.
    public func nack(requeue: Bool) { settle(.nack(requeue: requeue)) }

    /// Refused: with `requeue: false` the queue dead-letters it.
    public func reject(requeue: Bool) { settle(.reject(requeue: requeue)) }

    private func settle(_ outcome: AMQPConsumer.Settlement) {
        guard settled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        consumer?.enqueueSettlement(deliveryTag, outcome, generation: generation)
    }
}
