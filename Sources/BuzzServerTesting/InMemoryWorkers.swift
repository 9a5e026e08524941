import AMQPClient
import BuzzServer
import Foundation

/// The pipeline's workers and scheduler in one process over in-memory ports: each queue's
/// stage takes its messages from an ``InMemoryBroker``, commits to the context's store,
/// relays its outbox rows after the commit through the same ``Outbox/relay(_:broker:outbox:log:)``
/// the real workers use, and acks; due timers go out through a ``Scheduler`` on an
/// ``InMemoryOutbox``, and settled windows reach their runs through a ``WindowCompleter``
/// once their completion delay has passed on the store's clock. Played in turn, on the caller's thread, until nothing is left to do.
public final class InMemoryWorkers: @unchecked Sendable {
    public let context: PipelineContext
    public let broker: InMemoryBroker
    public let outbox: InMemoryOutbox
    let scheduler: Scheduler
    let completer: WindowCompleter

    public init(context: PipelineContext, broker: InMemoryBroker, outbox: InMemoryOutbox, completion: CompletionSettings = CompletionSettings()) {
        self.context = context
        self.broker = broker
        self.outbox = outbox
        scheduler = Scheduler(outbox: outbox, broker: broker, databaseURL: nil, configuration: .init(topology: context.topology, packSize: 100),
                              metrics: context.metrics, log: context.log)
        completer = WindowCompleter(context: context, settings: completion)
    }

    /// Relays what is due and processes every ready message of every queue, again and again,
    /// until none is left now. Returns how many messages were processed. A message that cannot
    /// be understood is dead-lettered; any other failure puts it back and is thrown.
    @discardableResult
    public func runUntilIdle() throws -> Int {
        var processed = 0
        while true {
            var round = try scheduler.relayDue() + completer.completeBatch()
            for queue in Topology.Queue.allCases {
                for delivery in broker.take(queue) {
                    try handle(delivery)
                    round += 1
                    processed += 1
                }
            }
            if round == 0 { return processed }
        }
    }

    /// Processes the messages ready in `queue` now, and only those (what lands in other queues
    /// waits): a test orders the stages as workers racing each other might.
    @discardableResult
    public func run(_ queue: Topology.Queue) throws -> Int {
        let deliveries = broker.take(queue, limit: .max)
        try deliveries.forEach(handle)
        return deliveries.count
    }

    private func handle(_ delivery: InMemoryBroker.Delivery) throws {
        let message = delivery.message
        do {
            let rows = try QueueStage(context: context, queue: delivery.queue)
                .process(routingKey: message.routingKey, body: message.body, headers: message.headers, messageId: message.messageId)
            Outbox.relay(rows, broker: broker, outbox: outbox, log: context.log)
            broker.ack(delivery)
        } catch let error as ServerError where error.outcome == .permanent {
            var headers = message.headers
            headers["x-buzzkit-error"] = .string("\(error)")
            try broker.publishAndWait([AMQPMessage(routingKey: context.topology.deadLetterName(delivery.queue), body: message.body, headers: headers,
                                                   messageId: message.messageId)])
            broker.ack(delivery)
        } catch {
            broker.nack(delivery, requeue: true)
            throw error
        }
    }
}
