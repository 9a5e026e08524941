import AMQPClient
import BuzzServerCore

extension Topology {
    /// Declares everything (idempotent). Run it on every (re)connect.
    public func declare(on connection: AMQPConnection) throws {
        try connection.declareExchange(otherEventsExchange, type: "fanout")
        try connection.declareExchange(otherBulkEventsExchange, type: "fanout")
        try connection.declareExchange(eventsExchange, type: "topic", arguments: ["alternate-exchange": .string(otherEventsExchange)])
        try connection.declareExchange(bulkEventsExchange, type: "topic", arguments: ["alternate-exchange": .string(otherBulkEventsExchange)])
        for queue in Queue.allCases {
            try declareDeadLetterQueue(deadLetterName(queue), on: connection)
            try connection.declareQueue(name(queue), arguments: [
                "x-dead-letter-exchange": "",
                "x-dead-letter-routing-key": .string(deadLetterName(queue)),
                "x-dead-letter-strategy": "at-least-once",
                "x-overflow": "reject-publish",
                "x-delivery-limit": .int(Int64(deliveryLimit)),
            ])
        }
        // A device's word on a plan is never bulk: it goes to ack-ingest from either exchange.
        for exchange in [eventsExchange, bulkEventsExchange] {
            for key in Self.ackIngestKeys { try connection.bindQueue(name(.ackIngest), exchange: exchange, routingKey: key) }
        }
        try connection.bindQueue(name(.trigger), exchange: otherEventsExchange, routingKey: "")
        try connection.bindQueue(name(.triggerBulk), exchange: otherBulkEventsExchange, routingKey: "")
    }

    /// Declares a dead-letter queue with ``deadLetterTTLSeconds``. One declared by an older version
    /// without it is kept as it is (RabbitMQ refuses to change a queue's arguments, 406): its
    /// letters then stay until replayed or purged; delete the empty queue once to get the TTL.
    private func declareDeadLetterQueue(_ name: String, on connection: AMQPConnection) throws {
        do {
            try connection.declareQueue(name, arguments: ["x-message-ttl": .int(Self.deadLetterTTLSeconds * 1000)])
        } catch let error as AMQPError where error.replyCode == 406 {
            _ = try connection.queueDepth(name)
        }
    }

    /// Deletes every queue and exchange (a test's or a bench run's own prefix, at its end).
    public func delete(on connection: AMQPConnection) throws {
        for queue in Queue.allCases {
            try connection.deleteQueue(name(queue))
            try connection.deleteQueue(deadLetterName(queue))
        }
        for exchange in [eventsExchange, otherEventsExchange, bulkEventsExchange, otherBulkEventsExchange] {
            try connection.deleteExchange(exchange)
        }
    }
}
