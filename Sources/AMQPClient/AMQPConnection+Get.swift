import CRabbitMQ
import CShims
import Foundation

/// A message taken with `basic.get`, unacknowledged until ``AMQPConnection/settle(_:requeue:)``.
public struct AMQPGotMessage: Sendable {
    public var deliveryTag: UInt64
    public var redelivered: Bool
    /// The message as the broker holds it: exchange and routing key it was last routed with,
    /// body and properties.
    public var message: AMQPMessage
}

extension AMQPConnection {
    /// Takes the next message of `queue` with `basic.get` (no auto-ack); nil when it is empty.
    /// Tools that look at a queue one message at a time use it (dead letters); workers consume.
    public func get(_ queue: String) throws -> AMQPGotMessage? {
        let arena = CArena()
        let reply = amqp_basic_get(state, channel, arena.bytes(queue), 0)
        if let error = Self.replyError(reply, context: "basic.get \(queue)") { throw error }
        // basic.get-empty is 0x003C0048, basic.get-ok 0x003C0047 (amqp_framing.h).
        if reply.reply.id == 0x003C_0048 { return nil }
        guard reply.reply.id == 0x003C_0047, let decoded = reply.reply.decoded else {
            throw AMQPError(.library, "basic.get \(queue): unexpected reply method \(reply.reply.id)")
        }
        let ok = decoded.assumingMemoryBound(to: amqp_basic_get_ok_t.self).pointee
        var message = amqp_message_t()
        let read = amqp_read_message(state, channel, &message, 0)
        if let error = Self.replyError(read, context: "basic.get \(queue): the message") { throw error }
        defer { amqp_destroy_message(&message) }
        return AMQPGotMessage(deliveryTag: ok.delivery_tag, redelivered: ok.redelivered != 0,
                              message: AMQPMessage(received: message, exchange: ok.exchange, routingKey: ok.routing_key))
    }

    /// Acknowledges a message taken with ``get(_:)``, or gives it back to its queue with `requeue`.
    public func settle(_ message: AMQPGotMessage, requeue: Bool = false) throws {
        if requeue {
            try basicNack(message.deliveryTag, requeue: true)
        } else {
            try basicAck(message.deliveryTag)
        }
    }
}

extension AMQPMessage {
    /// A message copied out of rabbitmq-c memory (a delivery's or a `basic.get`'s).
    init(received message: amqp_message_t, exchange: amqp_bytes_t, routingKey: amqp_bytes_t) {
        let properties = message.properties, flags = properties._flags
        self.init(exchange: AMQPDecode.string(exchange), routingKey: AMQPDecode.string(routingKey), body: AMQPDecode.data(message.body),
                  headers: flags & UInt32(AMQP_BASIC_HEADERS_FLAG) != 0 ? AMQPDecode.table(properties.headers) : [:],
                  messageId: flags & UInt32(AMQP_BASIC_MESSAGE_ID_FLAG) != 0 ? AMQPDecode.string(properties.message_id) : nil,
                  contentType: flags & UInt32(AMQP_BASIC_CONTENT_TYPE_FLAG) != 0 ? AMQPDecode.string(properties.content_type) : nil,
                  persistent: flags & UInt32(AMQP_BASIC_DELIVERY_MODE_FLAG) != 0 && properties.delivery_mode == 2)
    }
}
