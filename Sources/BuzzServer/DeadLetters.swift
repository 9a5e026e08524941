import AMQPClient
import BuzzServerCore
import BuzzStore
import Foundation

/// The dead-letter queues for operators: `buzzkit dlq list|replay QUEUE`.
///
/// A message is dead-lettered when it cannot be handled (a permanent failure, with the reason
/// in `x-buzzkit-error`) or failed too often (the queue's delivery limit). After the cause is
/// fixed, ``replay(_:limit:broker:)`` sends each back where it first went: an event to its
/// lane's exchange under its original routing key, a pipeline message to its queue. It keeps
/// its message id and headers (so deduplication still holds, and a device's event stays in
/// its subscriber's id space), and is acknowledged in the dead-letter queue only after the
/// broker confirmed the copy: a replay cut short loses nothing and, thanks to the ids,
/// handles nothing twice.
public struct DeadLetters: Sendable {
    public let topology: Topology
    /// The broker's node, or its cluster's nodes.
    public let amqp: AMQPEndpoints

    public init(topology: Topology, amqp: AMQPEndpoints) {
        self.topology = topology
        self.amqp = amqp
    }

    /// One dead letter as listed.
    public struct Letter: Sendable {
        public var messageId: String?
        /// The routing key it had when it was first published.
        public var routingKey: String
        /// Why it was dead-lettered (`x-buzzkit-error`), or the broker's reason (`x-death`).
        public var reason: String
        public var body: Data

        public init(messageId: String?, routingKey: String, reason: String, body: Data) {
            (self.messageId, self.routingKey, self.reason, self.body) = (messageId, routingKey, reason, body)
        }
    }

    /// Up to `limit` dead letters of `queue`, oldest first; they stay in the queue (each is
    /// redelivered to it, which the dead-letter queues, classic queues, do not count). With
    /// `tenantId`, only that tenant's letters (``tenant(of:queue:)``), found among the first
    /// ``scanLimit``.
    public func list(_ queue: Topology.Queue, tenantId: String? = nil, limit: Int = 100) throws -> [Letter] {
        let connection = try amqp.connect().connection
        defer { connection.close() }
        var mine: [AMQPGotMessage] = []
        defer { for message in mine { try? connection.settle(message, requeue: true) } }
        try scan(queue, on: connection, tenantId: tenantId, budget: Self.scanLimit) { message in
            mine.append(message)
            return mine.count < limit
        }
        return mine.map { Letter(messageId: $0.message.messageId, routingKey: Self.originalRoutingKey($0.message), reason: Self.reason($0.message),
                                 body: $0.message.body) }
    }

    /// Sends up to `limit` dead letters of `queue` back where they first went, through `broker`
    /// (with confirms); returns how many. Only the letters there when it starts: one that
    /// fails again and is dead-lettered anew while it runs waits for the next replay, rather
    /// than going round for as long as the replay reads. With `tenantId`, only that tenant's
    /// letters among the first ``scanLimit`` (the others are held meanwhile and put back after).
    @discardableResult
    public func replay(_ queue: Topology.Queue, tenantId: String? = nil, limit: Int = .max, broker: any Broker) throws -> Int {
        let connection = try amqp.connect().connection
        defer { connection.close() }
        let waiting = try connection.queueDepth(topology.deadLetterName(queue)).messages
        var replayed = 0
        guard limit > 0 else { return 0 }
        try scan(queue, on: connection, tenantId: tenantId, budget: min(waiting, tenantId == nil ? .max : Self.scanLimit)) { message in
            do {
                try broker.publishAndWait([origin(of: message.message, queue: queue)])
            } catch {
                try? connection.settle(message, requeue: true)
                throw error
            }
            try connection.settle(message)
            replayed += 1
            return replayed < limit
        }
        return replayed
    }

    /// Reads up to `budget` letters of `queue` one by one and hands each of `tenantId`'s (every
    /// one, without a tenant) to `take`, which settles it or keeps it, and says whether to go
    /// on. Letters of other tenants are held unacknowledged, only their delivery tags kept (not
    /// their bodies), and given back at the end.
    private func scan(_ queue: Topology.Queue, on connection: AMQPConnection, tenantId: String?, budget: Int,
                      _ take: (AMQPGotMessage) throws -> Bool) throws {
        var others: [AMQPGotMessage] = []
        defer { for message in others { try? connection.settle(message, requeue: true) } }
        var read = 0
        while read < budget, let message = try connection.get(topology.deadLetterName(queue)) {
            read += 1
            if let tenantId, Self.tenant(of: message.message, queue: queue) != tenantId {
                var tag = message
                tag.message = AMQPMessage(routingKey: "", body: Data())
                others.append(tag)
                continue
            }
            guard try take(message) else { return }
        }
    }

    /// How many dead letters a tenant's list or replay reads through at most.
    public static let scanLimit = 10_000

    /// The tenant a dead letter belongs to, by what the publisher cannot make up: an event by
    /// the tenant its routing key was published under (the API and the workers route by the
    /// key's tenant, never by headers, DESIGN §4c); a pipeline message by its body, when every
    /// message packed in it is that one tenant's. Nil for anything else (unreadable, or
    /// several tenants packed together): only an operator's `buzzkit dlq` handles those.
    public static func tenant(of message: AMQPMessage, queue: Topology.Queue) -> String? {
        switch queue {
        case .trigger, .triggerBulk, .ackIngest:
            let key = originalRoutingKey(message)
            guard let dot = key.firstIndex(of: "."), dot != key.startIndex else { return nil }
            return String(key[..<dot])
        case .planDispatch, .planDispatchBulk, .fallbackCheck:
            guard let items = try? PipelineMessage.decodeAll(message.body), let first = items.first?.tenantId,
                  items.allSatisfy({ $0.tenantId == first }) else { return nil }
            return first
        }
    }

    /// The message as it was first published.
    func origin(of message: AMQPMessage, queue: Topology.Queue) -> AMQPMessage {
        var origin = message
        var headers = message.headers
        for key in headers.keys where key == "x-death" || key.hasPrefix("x-first-death") || key.hasPrefix("x-last-death")
            || ["x-buzzkit-error", "x-buzzkit-queue", "x-buzzkit-routing-key"].contains(key) {
            headers[key] = nil
        }
        origin.headers = headers
        switch queue {
        case .trigger, .triggerBulk, .ackIngest:
            (origin.exchange, origin.routingKey) = (topology.eventsExchange(queue.lane), Self.originalRoutingKey(message))
        case .planDispatch, .planDispatchBulk, .fallbackCheck:
            (origin.exchange, origin.routingKey) = ("", topology.name(queue))
        }
        origin.persistent = true
        return origin
    }

    /// The first routing key of the broker's `x-death` record (the broker dead-lettered it at
    /// its delivery limit: the key it arrived with, whatever headers its publisher set), else
    /// `x-buzzkit-routing-key` (a worker dead-lettered it and wrote the key it came with), else
    /// the key it has.
    static func originalRoutingKey(_ message: AMQPMessage) -> String {
        if case .array(let deaths)? = message.headers["x-death"], case .table(let death)? = deaths.first,
           case .array(let keys)? = death["routing-keys"], let key = keys.first?.stringValue {
            return key
        }
        if let key = message.headers["x-buzzkit-routing-key"]?.stringValue { return key }
        return message.routingKey
    }

    static func reason(_ message: AMQPMessage) -> String {
        if let error = message.headers["x-buzzkit-error"]?.stringValue { return error }
        if case .array(let deaths)? = message.headers["x-death"], case .table(let death)? = deaths.first {
            return "dead-lettered by the broker: \(death["reason"]?.stringValue ?? "unknown"), \(death["count"]?.intValue.map { "\($0) time(s)" } ?? "")"
        }
        return "no reason recorded"
    }
}
