import AMQPClient
import Foundation
import PostgresClient

/// `buzzkit worker --queues …`: consumes the chosen work queues. Stateless; run as many as
/// the queues' depths call for.
public final class WorkerService: Service, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var queues: [Topology.Queue]
        public var prefetch: Int
        /// Worker threads per queue (each processes one batch at a time).
        public var threadsPerQueue: Int
        /// Most deliveries processed in one transaction.
        public var maxBatch: Int
        /// How long a message waits out a PostgreSQL or RabbitMQ outage in place before it goes
        /// back to its queue, as a fresh copy that has used no delivery attempt.
        public var outageHold: TimeInterval

        public init(queues: [Topology.Queue] = Topology.Queue.allCases, prefetch: Int = 200, threadsPerQueue: Int = 2, maxBatch: Int = 100,
                    outageHold: TimeInterval = 120) {
            self.queues = queues
            self.prefetch = prefetch
            self.threadsPerQueue = threadsPerQueue
            self.maxBatch = maxBatch
            self.outageHold = outageHold
        }
    }

    let workers: [QueueWorker]
    private let shutdownRequest = ShutdownRequest()
    public let name = "workers"

    /// `pool` serves the outbox fast path; `publisher` dead-letters and, unless `relay` is
    /// given, relays committed outbox rows.
    public init(configuration: Configuration, context: PipelineContext, amqp: AMQPEndpoints, publisher: AMQPPublisher, pool: PostgresPool,
                relay: (any Broker)? = nil) {
        let settings = QueueWorker.Settings(prefetch: UInt16(clamping: configuration.prefetch), threads: configuration.threadsPerQueue,
                                            maxBatch: configuration.maxBatch, outageHold: configuration.outageHold)
        workers = configuration.queues.map {
            QueueWorker(queue: $0, context: context, amqp: amqp, publisher: publisher, relayBroker: relay ?? publisher,
                        outbox: PostgresOutbox(pool: pool), settings: settings)
        }
        // Bulk queues yield to their interactive partner: consumed here or by another process.
        for worker in workers where worker.queue.lane == .bulk {
            let partner = workers.first { $0.queue == worker.queue.interactivePartner }
            worker.gate = LaneGate(share: context.lanes.bulkShare, partner: worker.queue.interactivePartner, topology: context.topology,
                                   amqp: amqp) { partner?.waitingCount ?? 0 }
        }
    }

    /// Deliveries of `queue` this process holds and has not begun (0 when it does not consume it).
    public func waiting(_ queue: Topology.Queue) -> Int {
        workers.filter { $0.queue == queue }.reduce(0) { $0 + $1.waitingCount }
    }

    public func start() {
        workers.forEach { $0.start() }
    }

    /// Stops every queue's intake at once, then drains each within `grace`.
    public func stop(grace: TimeInterval) {
        let group = DispatchGroup()
        for worker in workers {
            group.enter()
            Thread { worker.stop(grace: grace); group.leave() }.start()
        }
        group.wait()
    }

    /// Consumes until ``shutdown(deadline:)``, then drains by its deadline.
    public func run() {
        start()
        let deadline = shutdownRequest.wait()
        stop(grace: max(0, deadline.timeIntervalSinceNow))
    }

    public func shutdown(deadline: Date) { shutdownRequest.request(by: deadline) }

    /// True when every consumer holds a broker connection.
    public var isConnected: Bool { workers.allSatisfy(\.isConnected) }
}
