import CRabbitMQ

/// The kind of queue to declare.
public enum AMQPQueueKind: String, Sendable {
    /// Replicated Raft queue: durable, supports `x-delivery-limit` for poison messages.
    case quorum
    case classic
}

extension AMQPConnection {
    /// Declares an exchange (idempotent when the settings match).
    public func declareExchange(_ name: String, type: String = "topic", durable: Bool = true,
                                arguments: [String: AMQPFieldValue] = [:]) throws {
        let arena = CArena()
        amqp_exchange_declare(state, channel, arena.bytes(name), arena.bytes(type), 0, durable ? 1 : 0, 0, 0, arena.table(arguments))
        try checkRPC("exchange.declare \(name)")
    }

    /// Declares a durable queue with its arguments (for example dead-letter routing).
    /// Returns the queue's message and consumer counts.
    @discardableResult
    public func declareQueue(_ name: String, kind: AMQPQueueKind = .quorum, arguments: [String: AMQPFieldValue] = [:]) throws -> (messages: Int, consumers: Int) {
        var args = arguments
        args["x-queue-type"] = .string(kind.rawValue)
        let arena = CArena()
        guard let ok = amqp_queue_declare(state, channel, arena.bytes(name), 0, 1, 0, 0, arena.table(args)) else {
            try checkRPC("queue.declare \(name)")
            throw AMQPError(.library, "queue.declare returned nothing", context: "queue.declare \(name)")
        }
        return (Int(ok.pointee.message_count), Int(ok.pointee.consumer_count))
    }

    /// The exact depth and consumer count of an existing queue (passive declare).
    /// Throws `.brokerClosed` with reply code 404 when the queue does not exist.
    public func queueDepth(_ name: String) throws -> (messages: Int, consumers: Int) {
        let arena = CArena()
        guard let ok = amqp_queue_declare(state, channel, arena.bytes(name), 1, 0, 0, 0, amqp_empty_table) else {
            try checkRPC("queue.declare passive \(name)")
            throw AMQPError(.library, "queue.declare returned nothing", context: "queue.declare passive \(name)")
        }
        return (Int(ok.pointee.message_count), Int(ok.pointee.consumer_count))
    }

    /// Binds `queue` to `exchange` with `routingKey`.
    public func bindQueue(_ queue: String, exchange: String, routingKey: String) throws {
        let arena = CArena()
        amqp_queue_bind(state, channel, arena.bytes(queue), arena.bytes(exchange), arena.bytes(routingKey), amqp_empty_table)
        try checkRPC("queue.bind \(queue) -> \(exchange) [\(routingKey)]")
    }

    /// Removes every ready message; returns how many.
    @discardableResult
    public func purgeQueue(_ name: String) throws -> Int {
        let arena = CArena()
        guard let ok = amqp_queue_purge(state, channel, arena.bytes(name)) else {
            try checkRPC("queue.purge \(name)")
            return 0
        }
        return Int(ok.pointee.message_count)
    }

    /// Deletes a queue (missing queues are fine).
    public func deleteQueue(_ name: String) throws {
        let arena = CArena()
        amqp_queue_delete(state, channel, arena.bytes(name), 0, 0)
        try checkRPC("queue.delete \(name)")
    }

    /// Deletes an exchange.
    public func deleteExchange(_ name: String) throws {
        let arena = CArena()
        amqp_exchange_delete(state, channel, arena.bytes(name), 0)
        try checkRPC("exchange.delete \(name)")
    }
}
