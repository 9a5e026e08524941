import AMQPClient
import Foundation

/// One queue's stage as a worker runs it, for any broker: decodes one message, processes it
/// in one store transaction, and returns the outbox rows to relay after the commit (what
/// `QueueWorker` does per delivery on RabbitMQ, and `InMemoryWorkers` in one process).
public struct QueueStage: Sendable {
    public let context: PipelineContext
    public let queue: Topology.Queue

    public init(context: PipelineContext, queue: Topology.Queue) {
        self.context = context
        self.queue = queue
    }

    /// - Throws: ``ServerError`` `.invalidInput` for a message that cannot be understood
    ///   (dead-letter it: retrying cannot help); the store's own errors otherwise.
    public func process(routingKey: String, body: Data, headers: [String: AMQPFieldValue], messageId: String?) throws -> [Outbox.Row] {
        let item = try WorkItem.decode(routingKey: routingKey, body: body, headers: headers, messageId: messageId, queue: queue, now: context.clock.now)
        return try StageProcessor(context: context).process([item])
    }
}
