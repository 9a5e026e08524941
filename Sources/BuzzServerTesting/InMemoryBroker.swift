import AMQPClient
import BuzzServer
import Foundation

/// The ``Broker`` port in memory, routed like ``Topology``: events to `trigger` (a device's
/// `$local.*` words to `ack-ingest`), pipeline messages by queue name. Consumers ``take(_:limit:)``
/// messages and settle each with ``ack(_:)`` or ``nack(_:requeue:)``; unsettled ones count
/// as in flight. ``isConnected`` can be turned off to play an outage (publishes then throw).
public final class InMemoryBroker: Broker, @unchecked Sendable {
    /// A message handed to a consumer and not settled yet.
    public struct Delivery: Sendable {
        public let tag: Int
        public let queue: Topology.Queue
        public let message: AMQPMessage
        public let redelivered: Bool
    }

    public let topology: Topology
    private let lock = NSLock()
    private var ready: [Topology.Queue: [(message: AMQPMessage, redelivered: Bool)]] = [:]
    private var unsettled: [Int: Delivery] = [:]
    private var nextTag = 1
    private var connected = true
    /// Messages dead-lettered, by queue (what `<queue>.dlq` would hold).
    public private(set) var deadLetters: [Topology.Queue: [AMQPMessage]] = [:]
    /// Pipeline messages ever routed to each queue (a packed message counts as those it carries).
    public var routed: [Topology.Queue: Int] { lock.withLock { routedCounts } }
    private var routedCounts: [Topology.Queue: Int] = [:]

    public init(topology: Topology = Topology()) { self.topology = topology }

    public var isConnected: Bool {
        get { lock.withLock { connected } }
        set { lock.withLock { connected = newValue } }
    }

    public func publishAndWait(_ messages: [AMQPMessage]) throws {
        try lock.withLock {
            guard connected else { throw AMQPError(.connectionLost, "the in-memory broker is down") }
            for message in messages {
                if let dead = Topology.Queue.allCases.first(where: { topology.deadLetterName($0) == message.routingKey && message.exchange.isEmpty }) {
                    deadLetters[dead, default: []].append(message)
                } else if let queue = route(message) {
                    ready[queue, default: []].append((message, false))
                    routedCounts[queue, default: 0] += Int(message.headers[Topology.itemsHeader]?.intValue ?? 1)
                }
            }
        }
    }

    public func publishBatch(_ messages: [AMQPMessage]) async throws { try publishAndWait(messages) }

    /// The queue `message` lands in (nil: unroutable, dropped as RabbitMQ would).
    func route(_ message: AMQPMessage) -> Topology.Queue? {
        if message.exchange.isEmpty { return Topology.Queue.allCases.first { topology.name($0) == message.routingKey } }
        guard let lane = Topology.Lane.allCases.first(where: { topology.eventsExchange($0) == message.exchange }),
              let dot = message.routingKey.firstIndex(of: ".") else { return nil }
        let event = message.routingKey[message.routingKey.index(after: dot)...]
        return Topology.ackIngestKeys.contains { $0.dropFirst(2) == event } ? .ackIngest : Topology.Queue.trigger.inLane(lane)
    }

    /// Hands out up to `limit` ready messages of `queue`, oldest first.
    public func take(_ queue: Topology.Queue, limit: Int = 100) -> [Delivery] {
        lock.withLock {
            let batch = (ready[queue] ?? []).prefix(limit)
            ready[queue] = Array((ready[queue] ?? []).dropFirst(batch.count))
            return batch.map { entry in
                let delivery = Delivery(tag: nextTag, queue: queue, message: entry.message, redelivered: entry.redelivered)
                nextTag += 1
                unsettled[delivery.tag] = delivery
                return delivery
            }
        }
    }

    /// Done: the message is gone.
    public func ack(_ delivery: Delivery) { lock.withLock { _ = unsettled.removeValue(forKey: delivery.tag) } }

    /// Failed: back to the front of its queue (flagged redelivered), or dropped.
    public func nack(_ delivery: Delivery, requeue: Bool) {
        lock.withLock {
            guard unsettled.removeValue(forKey: delivery.tag) != nil, requeue else { return }
            ready[delivery.queue, default: []].insert((delivery.message, true), at: 0)
        }
    }

    /// Ready messages by queue (unsettled ones not counted).
    public func depth(_ queue: Topology.Queue) -> Int { lock.withLock { ready[queue]?.count ?? 0 } }
}
