import BuzzServerCore
import BuzzStore
import Foundation

/// `buzzkit worker --queues …`: consumes the chosen work queues. Stateless; run as many as
/// the queues' depths call for.
public final class WorkerService: Service, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var queues: [Topology.Queue]
        public var prefetch: Int
        /// Worker threads per queue (each processes one batch at a time; with 0 the caller
        /// drives the workers with ``WorkerService/processPending(_:)``).
        public var threadsPerQueue: Int
        /// Most deliveries processed in one transaction.
        public var maxBatch: Int
        /// How long a message waits out a PostgreSQL or RabbitMQ outage in place before it goes
        /// back to its queue, as a fresh copy that has used no delivery attempt.
        public var outageHold: TimeInterval
        /// How long a message may wait for a fuller batch (0: none).
        public var linger: TimeInterval

        public init(queues: [Topology.Queue] = Topology.Queue.allCases, prefetch: Int = 200, threadsPerQueue: Int = 2, maxBatch: Int = 100,
                    outageHold: TimeInterval = 120, linger: TimeInterval = 0) {
            self.queues = queues
            self.prefetch = prefetch
            self.threadsPerQueue = threadsPerQueue
            self.maxBatch = maxBatch
            self.outageHold = outageHold
            self.linger = linger
        }
    }

    let workers: [QueueWorker]
    private let shutdownRequest = ShutdownRequest()
    public let name = "workers"

    /// `broker` is consumed and dead-letters and, unless `relay` is given, relays committed
    /// outbox rows; `outbox` marks relayed rows sent (the fast path).
    public init(configuration: Configuration, context: PipelineContext, broker: any Broker, outbox: any OutboxStore, relay: (any Broker)? = nil) {
        let settings = QueueWorker.Settings(prefetch: UInt16(clamping: configuration.prefetch), threads: configuration.threadsPerQueue,
                                            maxBatch: configuration.maxBatch, outageHold: configuration.outageHold, linger: configuration.linger)
        workers = configuration.queues.map {
            QueueWorker(queue: $0, context: context, broker: broker, relayBroker: relay, outbox: outbox, settings: settings)
        }
        // Bulk queues yield to their interactive partner: consumed here or by another process.
        for worker in workers where worker.queue.lane == .bulk {
            let partner = workers.first { $0.queue == worker.queue.interactivePartner }
            worker.gate = LaneGate(share: context.lanes.bulkShare, partner: worker.queue.interactivePartner, broker: broker) {
                partner?.waitingCount ?? 0
            }
        }
    }

    /// Deliveries of `queue` this process holds and has not begun (0 when it does not consume it).
    public func waiting(_ queue: Topology.Queue) -> Int {
        workers.filter { $0.queue == queue }.reduce(0) { $0 + $1.waitingCount }
    }

    public func start() {
        workers.forEach { $0.start() }
    }

    /// Handles, on the caller's thread, what the broker has handed `queue`'s worker and no
    /// thread took (all of it with `threadsPerQueue` 0, as the in-memory pipeline runs the
    /// workers); returns how many deliveries.
    @discardableResult
    public func processPending(_ queue: Topology.Queue) -> Int {
        workers.filter { $0.queue == queue }.reduce(0) { $0 + $1.processPending() }
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
