import AMQPClient
import BuzzServerCore
import Foundation
import PostgresClient
import PushDelivery

/// The shared parts of a process, built from its ``Configuration``: the database pool, the
/// confirming publisher, the store and the pipeline context.
public final class Runtime: @unchecked Sendable {
    public let configuration: Configuration
    public let pool: PostgresPool
    public let publisher: AMQPPublisher
    /// The broker port over `publisher` and consumers of its own.
    public let broker: AMQPBroker
    /// The broker's node, or its cluster's nodes (`BUZZKIT_AMQP_URL`, comma-separated).
    public let amqp: AMQPEndpoints
    public let topology: Topology
    public private(set) var context: PipelineContext
    public let metrics: Metrics
    public let log: Log

    public init(configuration: Configuration, push: any PushProvider, component: String, topology: Topology? = nil,
                failFastPublishes: Bool = false) throws {
        let topology = topology ?? Topology(prefix: configuration.queuePrefix)
        self.configuration = configuration
        let url = configuration.databaseURL + (configuration.databaseSchema == "public" ? "" :
            (configuration.databaseURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(configuration.databaseSchema)")
        pool = PostgresPool(.init(url: url, maxConnections: configuration.databasePoolSize, applicationName: "buzzkit-\(component)"))
        amqp = try AMQPEndpoints(configuration.amqpURL)
        self.topology = topology
        publisher = AMQPPublisher(.init(endpoints: amqp, failFastWhenDisconnected: failFastPublishes,
                                        onConnect: { try topology.declare(on: $0) }))
        broker = AMQPBroker(publisher: publisher, endpoints: amqp, topology: topology)
        metrics = Metrics()
        context = PipelineContext(store: PostgresStore(pool: pool, runStateForm: configuration.runStateForm), topology: topology, push: push, metrics: metrics)
        log = Log(format: Log.Format(rawValue: configuration.logFormat) ?? .json, component: component)
        context.log = log
        context.lanes = configuration.lanes
        context.packSize = configuration.batchSize
    }

    /// The database URL with the schema applied (for LISTEN connections).
    public var databaseURL: String {
        pool.configuration.url
    }

    /// Workers for `queues` with this process's settings.
    public func workers(_ queues: [Topology.Queue]) -> WorkerService {
        WorkerService(configuration: .init(queues: queues, prefetch: configuration.prefetch, threadsPerQueue: configuration.workerThreads,
                                           maxBatch: configuration.batchSize, outageHold: configuration.outageHoldSeconds,
                                           linger: Double(configuration.batchLingerMilliseconds) / 1000),
                      context: context, broker: broker, outbox: PostgresOutbox(pool: pool))
    }

    public func scheduler() -> Scheduler {
        Scheduler(pool: pool, broker: broker, databaseURL: databaseURL,
                  configuration: .init(batchSize: max(configuration.batchSize * 20, 500), topology: topology, packSize: configuration.batchSize * 5 / 2,
                                       relays: configuration.schedulerRelays, vacuumEvery: configuration.schedulerVacuumEvery),
                  metrics: metrics, log: log)
    }

    /// The retention sweeper `buzzkit scheduler` runs beside the scheduler.
    public func retention() -> RetentionSweeper {
        RetentionSweeper(pool: pool, settings: configuration.retention, metrics: metrics, log: log)
    }

    /// The window completer `buzzkit scheduler` runs beside `scheduler` (and `buzzkit dev`
    /// beside `workers` too), yielding to their backlog and to `fallback-check`'s.
    public func windowCompleter(beside scheduler: Scheduler? = nil, workers: WorkerService? = nil) -> WindowCompleter {
        WindowCompleter(context: context, settings: configuration.completion, broker: broker, scheduler: scheduler, workers: workers)
    }

    /// Closes the publisher (waiting for outstanding confirms until `deadline`, by default
    /// the shutdown grace from now) and the pool.
    public func close(by deadline: Date? = nil) {
        let deadline = deadline ?? Date().addingTimeInterval(configuration.shutdownGraceSeconds)
        broker.close(timeout: max(0, deadline.timeIntervalSinceNow))
        pool.close()
    }
}
