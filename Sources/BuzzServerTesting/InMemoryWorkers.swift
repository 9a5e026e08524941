import AMQPClient
import BuzzServer
import Foundation

/// The pipeline's workers and scheduler in one process over in-memory ports: the real
/// ``WorkerService`` (with no threads of its own) consumes every queue of an
/// ``InMemoryBroker``, so each delivery is batched, processed, relayed after the commit,
/// acked, dead-lettered or returned exactly as on RabbitMQ; due timers go out through a
/// ``Scheduler`` on an ``InMemoryOutbox``, and settled windows reach their runs through a
/// ``WindowCompleter`` once their completion delay has passed on the store's clock. Played in
/// turn, on the caller's thread, until nothing is left to do.
public final class InMemoryWorkers: @unchecked Sendable {
    public let context: PipelineContext
    public let broker: InMemoryBroker
    public let outbox: InMemoryOutbox
    public let scheduler: Scheduler
    let completer: WindowCompleter
    let workers: WorkerService
    /// Most rounds ``runUntilIdle()`` plays before it gives up (a message that keeps failing
    /// without reaching its delivery limit, such as one returned through an endless outage).
    public var roundLimit = 1_000

    public init(context: PipelineContext, broker: InMemoryBroker, outbox: InMemoryOutbox, completion: CompletionSettings = CompletionSettings()) {
        self.context = context
        self.broker = broker
        self.outbox = outbox
        scheduler = Scheduler(outbox: outbox, broker: broker, databaseURL: nil, configuration: .init(topology: context.topology, packSize: 100),
                              metrics: context.metrics, log: context.log)
        completer = WindowCompleter(context: context, settings: completion)
        workers = WorkerService(configuration: .init(threadsPerQueue: 0, outageHold: 0), context: context, broker: broker, outbox: outbox)
        workers.start()
    }

    /// Relays what is due and processes every ready message of every queue, again and again,
    /// until none is left now. Returns how many deliveries were processed. A message that
    /// cannot be understood is dead-lettered; one that fails otherwise goes back to its queue
    /// until its delivery limit dead-letters it.
    @discardableResult
    public func runUntilIdle() throws -> Int {
        var processed = 0
        for _ in 0..<roundLimit {
            var round = try scheduler.relayDue() + completer.completeBatch()
            for queue in Topology.Queue.allCases {
                let handled = play(queue)
                round += handled
                processed += handled
            }
            if round == 0 { return processed }
        }
        throw ServerError(.internal, "the in-memory pipeline was still busy after \(roundLimit) rounds")
    }

    /// Processes the messages ready in `queue` now, and only those (what lands in other queues
    /// waits): a test orders the stages as workers racing each other might.
    @discardableResult
    public func run(_ queue: Topology.Queue) throws -> Int { play(queue) }

    private func play(_ queue: Topology.Queue) -> Int {
        broker.deliverReady(queue)
        return workers.processPending(queue)
    }
}
