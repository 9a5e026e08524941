import AMQPClient
import Foundation

/// The broker port: messages published with confirms. ``AMQPPublisher`` (RabbitMQ) is the
/// real one; ``InMemoryBroker`` routes like ``Topology`` into queues a test drains, with ack.
public protocol Broker: Sendable {
    /// Whether publishing can work now (`/readyz`).
    var isConnected: Bool { get }
    /// Publishes `messages` and returns once the broker confirmed every one; throws when any
    /// was not confirmed (then none may be counted on).
    func publishAndWait(_ messages: [AMQPMessage]) throws
    /// The same without blocking a thread (the API's handlers).
    func publishBatch(_ messages: [AMQPMessage]) async throws
}

extension AMQPPublisher: Broker {}
