import Foundation

/// A message to publish.
public struct AMQPMessage: Sendable {
    public var exchange: String
    public var routingKey: String
    public var body: Data
    public var headers: [String: AMQPFieldValue]
    public var messageId: String?
    public var contentType: String?
    /// Delivery mode 2 (written to disk by the broker) when true.
    public var persistent: Bool

    public init(exchange: String = "", routingKey: String, body: Data, headers: [String: AMQPFieldValue] = [:],
                messageId: String? = nil, contentType: String? = "application/json", persistent: Bool = true) {
        self.exchange = exchange
        self.routingKey = routingKey
        self.body = body
        self.headers = headers
        self.messageId = messageId
        self.contentType = contentType
        self.persistent = persistent
    }
}
