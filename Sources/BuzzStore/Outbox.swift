import Foundation

/// The transactional outbox: messages are inserted in the same transaction as the state
/// change that causes them, and published only after that commits.
///
/// Immediate messages take a fast path: after its commit the worker publishes them itself
/// (with confirms) and deletes their rows. Their rows carry a short lease (`available_at` a
/// few seconds ahead), so the scheduler relays them only if that worker died in between.
/// Timer rows (`availableAt` in the future) are always relayed by the scheduler.
public enum Outbox {
    /// Seconds the inserting worker has to publish an immediate message before the
    /// scheduler takes over.
    public static let relayLease: TimeInterval = 5
    /// The NOTIFY channel that wakes schedulers for timers due soon.
    public static let channel = "buzzkit_outbox"
    /// Timers due within this many seconds wake the scheduler through NOTIFY; later ones are
    /// picked up by its regular look at the next due time.
    public static let notifyHorizon: TimeInterval = 2

    /// A row written by ``StoreTransaction/enqueue(_:runIds:now:)``.
    public struct Row: Sendable {
        public var id: Int64
        public var message: OutboxMessage
        /// The messages packed in `message` when the worker that wrote the row makes their sends
        /// itself right after its commit (``SendProcessor/sendAfterCommit(_:)``): the row is
        /// then deleted, or, if that fails, relayed like any other.
        public var sendAfterCommit: [PipelineMessage] = []

        public init(id: Int64, message: OutboxMessage) { (self.id, self.message) = (id, message) }
    }
}
