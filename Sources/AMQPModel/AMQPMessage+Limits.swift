extension AMQPMessage {
    /// AMQP 0-9-1 short strings (exchange, routing key, message id, header names) hold at most
    /// 255 bytes.
    public static let shortStringLimit = 255

    /// Why the broker would refuse this message outright (a field over an AMQP limit), or nil.
    /// Such a message must never be sent: the broker answers by closing the channel, which
    /// would fail every other publish in flight on it. ``AMQPPublisher`` refuses it to its
    /// caller instead and keeps the connection.
    public var limitProblem: String? {
        let limit = Self.shortStringLimit
        if routingKey.utf8.count > limit { return "the routing key has \(routingKey.utf8.count) bytes; AMQP allows \(limit)" }
        if exchange.utf8.count > limit { return "the exchange name has \(exchange.utf8.count) bytes; AMQP allows \(limit)" }
        if let messageId, messageId.utf8.count > limit { return "the message id has \(messageId.utf8.count) bytes; AMQP allows \(limit)" }
        if let long = headers.keys.first(where: { $0.utf8.count > 128 }) {
            return "the header name \"\(long.prefix(40))…\" has \(long.utf8.count) bytes; AMQP allows 128"
        }
        return nil
    }
}
