import AMQPClient
import BuzzServer
import Foundation

/// Exact queue depths and consumer counts from the broker (passive declares on a connection
/// of its own), cached for a second so scrapes stay cheap.
final class QueueDepths: QueueDepthSource, @unchecked Sendable {
    let amqp: AMQPEndpoints
    let topology: Topology
    private let lock = NSLock()
    private var connection: AMQPConnection?
    private var cached: (at: Date, values: [(queue: String, messages: Int, consumers: Int)])?

    init(amqp: AMQPEndpoints, topology: Topology) {
        self.amqp = amqp
        self.topology = topology
    }

    /// Depths of every work queue and dead-letter queue (blocking).
    public func read(now: Date) throws -> [(queue: String, messages: Int, consumers: Int)] {
        lock.lock()
        defer { lock.unlock() }
        if let cached, now.timeIntervalSince(cached.at) < 1 { return cached.values }
        do {
            let connection = try self.connection ?? amqp.connect().connection
            self.connection = connection
            var values: [(String, Int, Int)] = []
            for queue in Topology.Queue.allCases {
                for name in [topology.name(queue), topology.deadLetterName(queue)] {
                    let depth = try connection.queueDepth(name)
                    values.append((name, depth.messages, depth.consumers))
                }
            }
            cached = (now, values)
            return values
        } catch {
            connection?.close()
            connection = nil
            throw error
        }
    }
}

/// Where `/metrics` reads queue depths: messages ready and consumers, by queue name.
public protocol QueueDepthSource: Sendable {
    /// Every work queue's and dead-letter queue's depth now (blocking).
    func read(now: Date) throws -> [(queue: String, messages: Int, consumers: Int)]
}
