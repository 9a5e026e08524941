import AMQPClient
import BuzzServer
import Foundation

extension InMemoryBroker {
    /// A message handed to a subscription and not settled yet.
    final class Delivery: BrokerDelivery, @unchecked Sendable {
        weak var broker: InMemoryBroker?
        let tag: Int
        let queue: Topology.Queue
        let message: AMQPMessage
        let redelivered: Bool

        init(broker: InMemoryBroker, tag: Int, queue: Topology.Queue, message: AMQPMessage, redelivered: Bool) {
            self.broker = broker
            self.tag = tag
            self.queue = queue
            self.message = message
            self.redelivered = redelivered
        }

        var body: Data { message.body }
        var exchange: String { message.exchange }
        var routingKey: String { message.routingKey }
        var headers: [String: AMQPFieldValue] { message.headers }
        var messageId: String? { message.messageId }
        var contentType: String? { message.contentType }
        func ack() { broker?.ack(self) }
        func nack(requeue: Bool) { broker?.nack(self, requeue: requeue) }
    }

    /// One queue's consumer: it is handed messages only once started and until cancelled.
    final class Subscription: BrokerSubscription, @unchecked Sendable {
        weak var broker: InMemoryBroker?
        let queue: Topology.Queue
        let deliver: @Sendable (any BrokerDelivery) -> Void
        private let lock = NSLock()
        private var state = (started: false, cancelled: false)

        init(broker: InMemoryBroker, queue: Topology.Queue, deliver: @escaping @Sendable (any BrokerDelivery) -> Void) {
            self.broker = broker
            self.queue = queue
            self.deliver = deliver
        }

        var started: Bool { lock.withLock { state.started && !state.cancelled } }
        func start() { lock.withLock { state.started = true } }
        func cancel(timeout: TimeInterval) -> Bool { lock.withLock { state.cancelled = true }; return true }
        func stop(grace: TimeInterval) { _ = cancel(timeout: grace) }
        var unsettledCount: Int { broker?.unsettledCount(queue) ?? 0 }
        var isConnected: Bool { broker?.isConnected ?? false }
    }
}
