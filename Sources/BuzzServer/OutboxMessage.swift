import Foundation

/// A message to publish once the transaction that caused it commits (or, as a timer, at
/// `availableAt`).
public struct OutboxMessage: Sendable, Equatable {
    public var exchange: String
    public var routingKey: String
    public var messageId: String
    public var body: Data
    /// When the scheduler may publish it; nil means now.
    public var availableAt: Date?

    public init(exchange: String = "", routingKey: String, messageId: String = UUID().uuidString.lowercased(), body: Data, availableAt: Date? = nil) {
        self.exchange = exchange
        self.routingKey = routingKey
        self.messageId = messageId
        self.body = body
        self.availableAt = availableAt
    }
}
