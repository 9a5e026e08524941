import AMQPModel
import Foundation

/// The broker port: publishing with confirms, and consuming a queue with manual settlement.
/// ``AMQPBroker`` (RabbitMQ) is the real one; `InMemoryBroker` (BuzzServerTesting) routes like
/// ``Topology`` into queues in memory. Both pass the same conformance tests.
public protocol Broker: Sendable {
    /// Whether publishing can work now (`/readyz`).
    var isConnected: Bool { get }
    /// Publishes `messages` and returns once the broker confirmed every one; throws when any
    /// was not confirmed (then none may be counted on).
    func publishAndWait(_ messages: [AMQPMessage]) throws
    /// The same without blocking a thread (the API's handlers).
    func publishBatch(_ messages: [AMQPMessage]) async throws
    /// A subscription to `queue`, not started: once started, each delivery is handed to
    /// `deliver` (which must return quickly) and stays unsettled until it is acked or nacked;
    /// at most `prefetch` are unsettled at once.
    func subscribe(_ queue: Topology.Queue, prefetch: UInt16, deliver: @escaping @Sendable (any BrokerDelivery) -> Void) -> any BrokerSubscription
    /// Messages ready in `queue` and not handed to any consumer (a bulk lane's pacing).
    func readyCount(_ queue: Topology.Queue) throws -> Int
}
