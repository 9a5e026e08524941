import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The part of ``StoreTransaction`` for outbox rows (messages and timers) written and taken inside
/// the transaction.
public protocol OutboxRows {
    /// Outbox rows committed with this transaction, for many runs at once (`runIds[i]` tags
    /// `messages[i]` so its timers can be deleted; nil for immediate ones).
    func enqueue(_ messages: [OutboxMessage], runIds: [UUID?], now: Date) throws -> [Outbox.Row]
    /// Deletes a run's pending timers (not yet published).
    func deleteTimers(runId: UUID) throws
    /// Deletes outbox rows by id (immediate messages their worker handled itself).
    func deleteOutboxRows(_ ids: [Int64]) throws
    /// Locks the outbox rows `ids` that no one else holds (the scheduler's relay claims with
    /// `SKIP LOCKED`, so it passes over them until this transaction ends) and returns their
    /// ids; rows already taken or gone are left out.
    func lockOutboxRows(_ ids: [Int64]) throws -> Set<Int64>
}
