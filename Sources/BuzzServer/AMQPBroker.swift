import AMQPClient
import BuzzServerCore
import Foundation

/// The ``Broker`` port on RabbitMQ: publishes through one confirming ``AMQPPublisher``,
/// consumes each queue with its own ``AMQPConsumer`` (which declares the topology on every
/// connect), and reads queue depths on one connection of its own.
public final class AMQPBroker: Broker, @unchecked Sendable {
    public let publisher: AMQPPublisher
    public let endpoints: AMQPEndpoints
    public let topology: Topology
    private let lock = NSLock()
    private var depthConnection: AMQPConnection?

    public init(publisher: AMQPPublisher, endpoints: AMQPEndpoints, topology: Topology) {
        self.publisher = publisher
        self.endpoints = endpoints
        self.topology = topology
    }

    public var isConnected: Bool { publisher.isConnected }

    public func publishAndWait(_ messages: [AMQPMessage]) throws { try publisher.publishAndWait(messages) }

    public func publishBatch(_ messages: [AMQPMessage]) async throws { try await publisher.publishBatch(messages) }

    public func subscribe(_ queue: Topology.Queue, prefetch: UInt16, deliver: @escaping @Sendable (any BrokerDelivery) -> Void) -> any BrokerSubscription {
        let topology = topology
        return AMQPConsumer(.init(endpoints: endpoints, queue: topology.name(queue), prefetch: prefetch,
                                  onConnect: { try topology.declare(on: $0) })) { deliver($0) }
    }

    /// Reads the depth with a passive declare; a connection gone stale while idle is replaced
    /// once before the error is thrown.
    public func readyCount(_ queue: Topology.Queue) throws -> Int {
        try lock.withLock {
            var lastError: Error?
            for _ in 0..<2 {
                do {
                    let connection = try depthConnection ?? endpoints.connect().connection
                    depthConnection = connection
                    return try connection.queueDepth(topology.name(queue)).messages
                } catch {
                    lastError = error
                    depthConnection?.close()
                    depthConnection = nil
                }
            }
            throw lastError!
        }
    }

    /// Closes the publisher (waiting for outstanding confirms up to `timeout`) and the depth connection.
    public func close(timeout: TimeInterval) {
        publisher.close(timeout: timeout)
        lock.withLock {
            depthConnection?.close()
            depthConnection = nil
        }
    }
}

extension AMQPDelivery: BrokerDelivery {}

extension AMQPConsumer: BrokerSubscription {}
