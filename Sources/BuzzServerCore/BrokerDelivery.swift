import AMQPModel
import Foundation

/// A message a ``Broker`` handed to a consumer. Settle it once, from any thread, with
/// ``ack()`` or ``nack(requeue:)``; later calls are ignored.
public protocol BrokerDelivery: AnyObject, Sendable {
    var body: Data { get }
    /// The exchange it was published to (empty: straight to its queue, a worker's own copy).
    var exchange: String { get }
    var routingKey: String { get }
    var headers: [String: AMQPFieldValue] { get }
    var messageId: String? { get }
    var contentType: String? { get }
    /// True when the broker handed this message out before (a consumer died or gave it back).
    var redelivered: Bool { get }
    /// Done: the broker forgets the message.
    func ack()
    /// Failed: back to its queue (counting toward the queue's delivery limit), or dropped.
    func nack(requeue: Bool)
}

extension BrokerDelivery {
    /// How many times the queue delivered this message before (`x-delivery-count`, which a
    /// quorum queue sets).
    public var deliveryCount: Int { Int(headers["x-delivery-count"]?.intValue ?? 0) }
}
