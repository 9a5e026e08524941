import CRabbitMQ
import CShims
import Foundation

/// One rabbitmq-c connection with one channel. Blocking and not thread-safe: it is owned by
/// one thread at a time (the publisher's or the consumer's own thread, or a setup step).
public final class AMQPConnection {
    let state: amqp_connection_state_t
    public let url: AMQPURL
    /// The single channel this connection uses.
    let channel: amqp_channel_t = 1
    private var open = false
    /// The channel's modes, set again on a reopened channel: a channel the broker closed (a
    /// refused declare) comes back without publisher confirms or a prefetch otherwise, and a
    /// publisher would then wait for confirms that never come.
    var confirming = false
    var prefetch: UInt16?

    /// Opens the TCP connection, logs in with heartbeats, and opens channel 1.
    public init(url: AMQPURL) throws {
        self.url = url
        guard let state = amqp_new_connection() else { throw AMQPError(.library, "rabbitmq-c could not allocate a connection") }
        self.state = state
        guard let socket = amqp_tcp_socket_new(state) else {
            amqp_destroy_connection(state)
            throw AMQPError(.library, "rabbitmq-c could not create a TCP socket")
        }
        var timeout = timeval(tv_sec: url.connectTimeout, tv_usec: 0)
        let status = amqp_socket_open_noblock(socket, url.host, Int32(url.port), &timeout)
        guard status == AMQP_STATUS_OK.rawValue else {
            amqp_destroy_connection(state)
            throw AMQPError(.connectionFailed, "cannot reach RabbitMQ at \(url.host):\(url.port): \(String(cString: amqp_error_string2(status)))")
        }
        let reply = bk_amqp_login_plain(state, url.vhost, 0, 131_072, Int32(url.heartbeat), url.user, url.password)
        if let error = Self.replyError(reply, context: "login to \(url.redacted)") {
            amqp_destroy_connection(state)
            throw AMQPError(.connectionFailed, error.message, replyCode: error.replyCode, context: error.context)
        }
        var rpcTimeout = timeval(tv_sec: 30, tv_usec: 0)
        amqp_set_rpc_timeout(state, &rpcTimeout)
        open = true
        do {
            amqp_channel_open(state, channel)
            try checkRPC("channel.open")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes the channel and connection politely, then frees them.
    public func close() {
        guard open else { return }
        open = false
        amqp_channel_close(state, channel, Int32(AMQP_REPLY_SUCCESS))
        amqp_connection_close(state, Int32(AMQP_REPLY_SUCCESS))
        amqp_destroy_connection(state)
    }

    /// Drops the connection without the closing handshake (the peer may be gone).
    func abandon() {
        guard open else { return }
        open = false
        amqp_destroy_connection(state)
    }

    /// The socket's file descriptor, for `poll`.
    var socketDescriptor: Int32 { amqp_get_sockfd(state) }

    /// Runs `body` with the socket corked (`TCP_CORK`): the frames it writes leave as full
    /// segments when it ends instead of one segment a message, so a batch of publishes costs
    /// the kernel and the broker a few packets instead of one each.
    func corked<R>(_ body: () throws -> R) rethrows -> R {
        let fd = socketDescriptor
        var on: Int32 = 1, off: Int32 = 0
        let corked = fd >= 0 && setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
        defer { if corked { _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &off, socklen_t(MemoryLayout<Int32>.size)) } }
        return try body()
    }

    /// True when rabbitmq-c already holds bytes or frames that a read would return.
    var hasBufferedInput: Bool { amqp_frames_enqueued(state) != 0 || amqp_data_in_buffer(state) != 0 }

    /// Releases rabbitmq-c's per-message memory pools.
    func releaseBuffers() { amqp_maybe_release_buffers(state) }
}

extension AMQPConnection {
    /// The one place rabbitmq-c RPC replies become typed errors.
    func checkRPC(_ context: String) throws {
        if let error = Self.replyError(amqp_get_rpc_reply(state), context: context) {
            if error.code == .brokerClosed { try? recoverChannelIfClosed(error) }
            throw error
        }
    }

    /// The one place rabbitmq-c status codes become typed errors.
    func checkStatus(_ status: Int32, _ context: String) throws {
        guard status != AMQP_STATUS_OK.rawValue else { return }
        throw Self.statusError(status, context: context)
    }

    static func statusError(_ status: Int32, context: String) -> AMQPError {
        let text = String(cString: amqp_error_string2(status))
        switch status {
        case AMQP_STATUS_TIMEOUT.rawValue:
            return AMQPError(.timeout, text, context: context)
        case AMQP_STATUS_CONNECTION_CLOSED.rawValue, AMQP_STATUS_SOCKET_ERROR.rawValue, AMQP_STATUS_HEARTBEAT_TIMEOUT.rawValue,
             AMQP_STATUS_SOCKET_CLOSED.rawValue, AMQP_STATUS_TCP_ERROR.rawValue:
            return AMQPError(.connectionLost, text, context: context)
        default:
            return AMQPError(.library, text, context: context)
        }
    }

    static func replyError(_ reply: amqp_rpc_reply_t, context: String) -> AMQPError? {
        switch reply.reply_type {
        case AMQP_RESPONSE_NORMAL:
            return nil
        case AMQP_RESPONSE_NONE:
            return AMQPError(.library, "missing RPC reply", context: context)
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            return statusError(reply.library_error, context: context)
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            if reply.reply.id == bk_amqp_method_connection_close(), let decoded = reply.reply.decoded {
                let close = decoded.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
                return AMQPError(.brokerClosed, "connection closed by broker: \(AMQPDecode.string(close.reply_text))",
                                 replyCode: Int(close.reply_code), context: context)
            }
            if reply.reply.id == bk_amqp_method_channel_close(), let decoded = reply.reply.decoded {
                let close = decoded.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
                return AMQPError(.brokerClosed, "channel closed by broker: \(AMQPDecode.string(close.reply_text))",
                                 replyCode: Int(close.reply_code), context: context)
            }
            return AMQPError(.brokerClosed, "broker error (method \(reply.reply.id))", context: context)
        default:
            return AMQPError(.library, "unknown reply type", context: context)
        }
    }

    /// After the broker closes the channel (for example a passive declare of a missing queue),
    /// acknowledge the close and open the channel again so the connection stays usable, in the
    /// modes it had (publisher confirms, prefetch).
    func recoverChannelIfClosed(_ error: AMQPError) throws {
        guard error.code == .brokerClosed, error.message.hasPrefix("channel closed") else { return }
        var ok = amqp_channel_close_ok_t(dummy: 0)
        try checkStatus(amqp_send_method(state, channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok), "channel.close-ok")
        amqp_channel_open(state, channel)
        if let reopen = Self.replyError(amqp_get_rpc_reply(state), context: "channel.open") { throw reopen }
        if confirming {
            amqp_confirm_select(state, channel)
            if let refused = Self.replyError(amqp_get_rpc_reply(state), context: "confirm.select") { throw refused }
        }
        if let prefetch {
            amqp_basic_qos(state, channel, 0, prefetch, 0)
            if let refused = Self.replyError(amqp_get_rpc_reply(state), context: "basic.qos") { throw refused }
        }
    }
}
