import CRabbitMQ
import CShims
import Foundation

/// What a read from the connection produced.
enum AMQPInbound {
    case delivery(AMQPRawDelivery)
    case confirm(tag: UInt64, multiple: Bool, ack: Bool)
    case consumerCancelled
    case cancelOk
    case nothing
}

/// A delivery copied out of rabbitmq-c memory.
struct AMQPRawDelivery {
    var deliveryTag: UInt64
    var redelivered: Bool
    var exchange: String
    var routingKey: String
    var body: Data
    var headers: [String: AMQPFieldValue]
    var messageId: String?
    var contentType: String?
}

extension AMQPConnection {
    /// Puts the channel in publisher-confirm mode.
    func confirmSelect() throws {
        amqp_confirm_select(state, channel)
        try checkRPC("confirm.select")
        confirming = true
    }

    /// Sends one publish frame set (no wait for the confirm).
    func basicPublish(_ message: AMQPMessage) throws {
        let arena = CArena()
        var properties = amqp_basic_properties_t()
        var flags: UInt32 = 0
        if message.persistent {
            properties.delivery_mode = 2
            flags |= UInt32(AMQP_BASIC_DELIVERY_MODE_FLAG)
        }
        if let contentType = message.contentType {
            properties.content_type = arena.bytes(contentType)
            flags |= UInt32(AMQP_BASIC_CONTENT_TYPE_FLAG)
        }
        if let messageId = message.messageId {
            properties.message_id = arena.bytes(messageId)
            flags |= UInt32(AMQP_BASIC_MESSAGE_ID_FLAG)
        }
        if !message.headers.isEmpty {
            properties.headers = arena.table(message.headers)
            flags |= UInt32(AMQP_BASIC_HEADERS_FLAG)
        }
        properties._flags = flags
        // Exchange, routing key and body are passed without copying: they live for the call.
        let status = withBytes(message.exchange) { exchange in
            withBytes(message.routingKey) { routingKey in
                message.body.withUnsafeBytes { body in
                    amqp_basic_publish(state, channel, exchange, routingKey, 0, 0, &properties,
                                       amqp_bytes_t(len: body.count, bytes: UnsafeMutableRawPointer(mutating: body.baseAddress)))
                }
            }
        }
        try checkStatus(status, "basic.publish to \(message.exchange.isEmpty ? "(default)" : message.exchange) [\(message.routingKey)]")
    }

    /// Lends `string`'s UTF-8 bytes to rabbitmq-c for the duration of `body`.
    private func withBytes<R>(_ string: String, _ body: (amqp_bytes_t) -> R) -> R {
        var string = string
        return string.withUTF8 { utf8 in
            body(amqp_bytes_t(len: utf8.count, bytes: UnsafeMutableRawPointer(mutating: utf8.baseAddress)))
        }
    }

    func basicQos(prefetch: UInt16) throws {
        amqp_basic_qos(state, channel, 0, prefetch, 0)
        try checkRPC("basic.qos \(prefetch)")
        self.prefetch = prefetch
    }

    func basicConsume(queue: String, consumerTag: String) throws {
        let arena = CArena()
        amqp_basic_consume(state, channel, arena.bytes(queue), arena.bytes(consumerTag), 0, 0, 0, amqp_empty_table)
        try checkRPC("basic.consume \(queue)")
    }

    /// Sends basic.cancel without waiting; the cancel-ok arrives through ``read(timeout:)``.
    func sendCancel(consumerTag: String) throws {
        let arena = CArena()
        var cancel = amqp_basic_cancel_t(consumer_tag: arena.bytes(consumerTag), nowait: 0)
        try checkStatus(amqp_send_method(state, channel, bk_amqp_method_basic_cancel(), &cancel), "basic.cancel")
    }

    func basicAck(_ tag: UInt64, multiple: Bool = false) throws {
        try checkStatus(amqp_basic_ack(state, channel, tag, multiple ? 1 : 0), "basic.ack")
    }

    func basicNack(_ tag: UInt64, requeue: Bool) throws {
        try checkStatus(amqp_basic_nack(state, channel, tag, 0, requeue ? 1 : 0), "basic.nack")
    }

    func basicReject(_ tag: UInt64, requeue: Bool) throws {
        try checkStatus(amqp_basic_reject(state, channel, tag, requeue ? 1 : 0), "basic.reject")
    }

    /// Waits until the socket is readable, `waker` fires, or `timeout` passes.
    /// Returns true when the socket (or rabbitmq-c's buffer) has input.
    func waitReadable(waker: AMQPWaker, timeout: TimeInterval) -> Bool {
        if hasBufferedInput { return true }
        var fds = [pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: waker.descriptor, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, Int32(max(0, timeout) * 1000))
        if ready > 0 && fds[1].revents != 0 { waker.drain() }
        return ready > 0 && fds[0].revents != 0
    }

    /// Reads the next message or method. With `consuming`, deliveries are read whole.
    func read(timeout: TimeInterval, consuming: Bool) throws -> AMQPInbound {
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        if consuming {
            var envelope = amqp_envelope_t()
            let reply = amqp_consume_message(state, &envelope, &tv, 0)
            if reply.reply_type == AMQP_RESPONSE_NORMAL {
                defer { amqp_destroy_envelope(&envelope) }
                return .delivery(Self.copy(envelope))
            }
            if reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION {
                if reply.library_error == AMQP_STATUS_TIMEOUT.rawValue { return .nothing }
                if reply.library_error != AMQP_STATUS_UNEXPECTED_STATE.rawValue {
                    throw Self.statusError(reply.library_error, context: "basic.consume read")
                }
                // A method other than basic.deliver is waiting: read it below.
                var frame = amqp_frame_t()
                try checkStatus(amqp_simple_wait_frame(state, &frame), "read frame")
                return try interpret(frame)
            }
            throw Self.replyError(reply, context: "basic.consume read") ?? AMQPError(.library, "unexpected reply")
        }
        var frame = amqp_frame_t()
        let status = amqp_simple_wait_frame_noblock(state, &frame, &tv)
        if status == AMQP_STATUS_TIMEOUT.rawValue { return .nothing }
        try checkStatus(status, "read frame")
        return try interpret(frame)
    }

    private func interpret(_ frame: amqp_frame_t) throws -> AMQPInbound {
        guard frame.frame_type == UInt8(AMQP_FRAME_METHOD) else { return .nothing }
        let id = frame.payload.method.id
        let decoded = frame.payload.method.decoded
        switch id {
        case bk_amqp_method_basic_ack():
            let ack = decoded!.assumingMemoryBound(to: amqp_basic_ack_t.self).pointee
            return .confirm(tag: ack.delivery_tag, multiple: ack.multiple != 0, ack: true)
        case bk_amqp_method_basic_nack():
            let nack = decoded!.assumingMemoryBound(to: amqp_basic_nack_t.self).pointee
            return .confirm(tag: nack.delivery_tag, multiple: nack.multiple != 0, ack: false)
        case bk_amqp_method_basic_cancel():
            return .consumerCancelled
        case AMQP_BASIC_CANCEL_OK_METHOD:
            return .cancelOk
        case bk_amqp_method_channel_close():
            let close = decoded!.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
            throw AMQPError(.brokerClosed, "channel closed by broker: \(AMQPDecode.string(close.reply_text))", replyCode: Int(close.reply_code))
        case bk_amqp_method_connection_close():
            let close = decoded!.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
            throw AMQPError(.brokerClosed, "connection closed by broker: \(AMQPDecode.string(close.reply_text))", replyCode: Int(close.reply_code))
        default:
            return .nothing
        }
    }

    private static func copy(_ envelope: amqp_envelope_t) -> AMQPRawDelivery {
        let message = AMQPMessage(received: envelope.message, exchange: envelope.exchange, routingKey: envelope.routing_key)
        return AMQPRawDelivery(deliveryTag: envelope.delivery_tag, redelivered: envelope.redelivered != 0, exchange: message.exchange,
                               routingKey: message.routingKey, body: message.body, headers: message.headers, messageId: message.messageId,
                               contentType: message.contentType)
    }
}
