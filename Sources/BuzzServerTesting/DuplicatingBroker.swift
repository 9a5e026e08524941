import AMQPClient
import BuzzServer
import Foundation

/// A ``Broker`` that publishes every message `copies` times through another, and consumes
/// through it unchanged: a drill for at-least-once delivery (every consumer must be
/// idempotent, so nothing a person sees may change).
public struct DuplicatingBroker: Broker {
    public let base: any Broker
    public let copies: Int

    public init(_ base: any Broker, copies: Int) {
        self.base = base
        self.copies = max(1, copies)
    }

    public var isConnected: Bool { base.isConnected }

    public func publishAndWait(_ messages: [AMQPMessage]) throws {
        try base.publishAndWait(Array(repeating: messages, count: copies).flatMap { $0 })
    }

    public func publishBatch(_ messages: [AMQPMessage]) async throws {
        try await base.publishBatch(Array(repeating: messages, count: copies).flatMap { $0 })
    }

    public func subscribe(_ queue: Topology.Queue, prefetch: UInt16, deliver: @escaping @Sendable (any BrokerDelivery) -> Void) -> any BrokerSubscription {
        base.subscribe(queue, prefetch: prefetch, deliver: deliver)
    }

    public func readyCount(_ queue: Topology.Queue) throws -> Int { try base.readyCount(queue) }
}
