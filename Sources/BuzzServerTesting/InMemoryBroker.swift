import AMQPClient
import BuzzServer
import Foundation

/// The ``Broker`` port in memory, routed like ``Topology``: events to `trigger` (a device's
/// `$local.*` words to `ack-ingest`), pipeline messages by queue name, dead letters kept apart.
/// A queue's subscription is handed its ready messages by ``deliverReady(_:)`` (on the
/// caller's thread, where a RabbitMQ consumer's thread would); each stays unsettled until
/// acked or nacked, and a requeued one comes back first, flagged redelivered, its
/// `x-delivery-count` one higher (as a quorum queue counts). ``isConnected`` can be turned
/// off to play an outage (publishes then throw).
public final class InMemoryBroker: Broker, @unchecked Sendable {
    public let topology: Topology
    private let lock = NSLock()
    private var ready: [Topology.Queue: [(message: AMQPMessage, redelivered: Bool)]] = [:]
    private var unsettled: [Int: Delivery] = [:]
    private var subscriptions: [Topology.Queue: Subscription] = [:]
    private var nextTag = 1
    private var connected = true
    /// Messages dead-lettered, by queue (what `<queue>.dlq` would hold).
    public private(set) var deadLetters: [Topology.Queue: [AMQPMessage]] = [:]
    /// Pipeline messages ever routed to each queue (a packed message counts as those it carries).
    public var routed: [Topology.Queue: Int] { lock.withLock { routedCounts } }
    private var routedCounts: [Topology.Queue: Int] = [:]
    /// Every message published and routed to a queue, in order.
    public var published: [AMQPMessage] { lock.withLock { history } }
    private var history: [AMQPMessage] = []

    public init(topology: Topology = Topology()) { self.topology = topology }

    public var isConnected: Bool {
        get { lock.withLock { connected } }
        set { lock.withLock { connected = newValue } }
    }

    public func publishAndWait(_ messages: [AMQPMessage]) throws {
        try lock.withLock {
            guard connected else { throw ServerError(.unavailable, "the in-memory broker is down") }
            for message in messages {
                if let dead = Topology.Queue.allCases.first(where: { topology.deadLetterName($0) == message.routingKey && message.exchange.isEmpty }) {
                    deadLetters[dead, default: []].append(message)
                } else if let queue = route(message) {
                    ready[queue, default: []].append((message, false))
                    history.append(message)
                    routedCounts[queue, default: 0] += Int(message.headers[Topology.itemsHeader]?.intValue ?? 1)
                }
            }
        }
    }

    public func publishBatch(_ messages: [AMQPMessage]) async throws { try publishAndWait(messages) }

    /// The queue `message` lands in (nil: unroutable, dropped as RabbitMQ would).
    func route(_ message: AMQPMessage) -> Topology.Queue? {
        if message.exchange.isEmpty { return Topology.Queue.allCases.first { topology.name($0) == message.routingKey } }
        if let lane = Topology.Lane.allCases.first(where: { topology.triggerExchange($0) == message.exchange }) { return Topology.Queue.trigger.inLane(lane) }
        guard let lane = Topology.Lane.allCases.first(where: { topology.eventsExchange($0) == message.exchange }),
              let dot = message.routingKey.firstIndex(of: ".") else { return nil }
        let event = message.routingKey[message.routingKey.index(after: dot)...]
        return Topology.ackIngestKeys.contains { $0.dropFirst(2) == event } ? .ackIngest : Topology.Queue.trigger.inLane(lane)
    }

    public func subscribe(_ queue: Topology.Queue, prefetch: UInt16, deliver: @escaping @Sendable (any BrokerDelivery) -> Void) -> any BrokerSubscription {
        let subscription = Subscription(broker: self, queue: queue, deliver: deliver)
        lock.withLock { subscriptions[queue] = subscription }
        return subscription
    }

    public func readyCount(_ queue: Topology.Queue) throws -> Int { depth(queue) }

    /// Hands the messages ready in `queue` now to its started subscription, oldest first;
    /// returns how many (0 with no subscription or none ready).
    @discardableResult
    public func deliverReady(_ queue: Topology.Queue) -> Int {
        let (subscription, batch): (Subscription?, [Delivery]) = lock.withLock {
            guard let subscription = subscriptions[queue], subscription.started else { return (nil, []) }
            let entries = ready[queue] ?? []
            ready[queue] = []
            let batch = entries.map { entry in
                let delivery = Delivery(broker: self, tag: nextTag, queue: queue, message: entry.message, redelivered: entry.redelivered)
                nextTag += 1
                unsettled[delivery.tag] = delivery
                return delivery
            }
            return (subscription, batch)
        }
        batch.forEach { subscription?.deliver($0) }
        return batch.count
    }

    /// Takes the messages ready in `queue` out of it, settled (a test that duplicates or
    /// reorders them publishes them again).
    public func removeReady(_ queue: Topology.Queue) -> [AMQPMessage] {
        lock.withLock {
            defer { ready[queue] = [] }
            return (ready[queue] ?? []).map(\.message)
        }
    }

    /// Done: the message is gone.
    func ack(_ delivery: Delivery) { lock.withLock { _ = unsettled.removeValue(forKey: delivery.tag) } }

    /// Failed: back to the front of its queue (redelivered, its delivery count one higher), or dropped.
    func nack(_ delivery: Delivery, requeue: Bool) {
        lock.withLock {
            guard unsettled.removeValue(forKey: delivery.tag) != nil, requeue else { return }
            var message = delivery.message
            message.headers["x-delivery-count"] = .int(Int64(delivery.deliveryCount + 1))
            ready[delivery.queue, default: []].insert((message, true), at: 0)
        }
    }

    func unsettledCount(_ queue: Topology.Queue) -> Int { lock.withLock { unsettled.values.filter { $0.queue == queue }.count } }

    /// Ready messages by queue (unsettled ones not counted).
    public func depth(_ queue: Topology.Queue) -> Int { lock.withLock { ready[queue]?.count ?? 0 } }
}
