import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The part of ``StoreTransaction`` for runs (written, locked, read, searched and erased) and what
/// events leave beside them: their ids, for idempotency, and the marks of cancelling events.
public protocol RunRows {
    func insertRun(_ run: RunRecord) throws
    /// Inserts several runs in one statement.
    func insertRuns(_ runs: [RunRecord]) throws
    /// The run, locked until the transaction ends (`SELECT … FOR UPDATE`).
    func lockRun(_ id: UUID) throws -> RunRecord?
    /// The run locked only if it belongs to `tenantId` (another tenant's row is never locked).
    func lockRun(_ id: UUID, tenantId: String) throws -> RunRecord?
    /// The run of `tenantId`, read without a lock (nil for another tenant's).
    func run(_ id: UUID, tenantId: String) throws -> RunRecord?
    /// Several runs locked in id order (no deadlocks between batches).
    func lockRuns(_ ids: [UUID]) throws -> [RunRecord]
    /// Of `ids`, the runs that were cancelled or are gone. The others stay share-locked until
    /// the transaction ends (`FOR SHARE`, in id order), so a cancel of one of them commits
    /// either before this read, and is seen here, or after this transaction, and its
    /// `bk.cancel` then finds the plan deliveries this transaction recorded.
    func cancelledRuns(_ ids: [UUID]) throws -> Set<UUID>
    func updateRun(_ run: RunRecord) throws
    /// Writes several runs in one statement.
    func updateRuns(_ runs: [RunRecord]) throws
    /// Every open (running or waiting) run of the subscriber.
    func openRuns(tenantId: String, subscriberId: String) throws -> [UUID]
    /// Open runs of the subscriber that `event` may cancel.
    func openRuns(tenantId: String, subscriberId: String, cancelEvent: String) throws -> [UUID]
    /// Deletes everything BuzzKit keeps of a subscriber: the subscriber (its timezone and
    /// properties), its devices, acknowledgments, opens and cancel marks, its runs (their
    /// trigger properties) with their plans, deliveries, decisions and timers, and the ids of
    /// events its devices sent; and leaves a tombstone (the SHA-256 of its id, erased `at`)
    /// that refuses its late device traffic.
    func eraseSubscriber(tenantId: String, subscriberId: String, at: Date) throws
    /// What was sent for each of the tenant's runs, and its first open.
    func activity(tenantId: String, runIds: [UUID]) throws -> [UUID: RunActivity]
    /// A page of the tenant's runs, newest first (`limit` of them at most).
    func runs(tenantId: String, _ query: RunQuery) throws -> [RunQuery.Found]
    /// Row-locks the runs, in id order as the other stages lock them, without reading their
    /// state; runs that do not exist are missing. Each says whether a pending mark names one of
    /// its cancelling events.
    func lockRunHeads(_ ids: [UUID]) throws -> [RunHead]
    /// Holds a lock on each of the tenant's subscribers until the transaction ends, taken in one
    /// order; another transaction asking for one of them waits until then. The trigger stage
    /// takes it first, so a trigger and a cancelling event of one subscriber, taken by two
    /// workers at once, are handled one after the other: each sees what the other wrote.
    func holdSubscribers(tenantId: String, _ subscriberIds: [String]) throws
    /// Records many event ids at once; returns those seen for the first time.
    func markEventsProcessed(tenantId: String, eventIds: [String], at: Date) throws -> Set<String>
    /// Keeps the latest mark per subscriber and event name (an older one never replaces a
    /// newer), pending while an accepted one is not handled (``CancelMark/merging(_:)``).
    func recordCancelMarks(tenantId: String, _ marks: [CancelMark]) throws
    /// Every mark of the given subscribers, or only their pending ones.
    func cancelMarks(tenantId: String, subscriberIds: [String], pendingOnly: Bool) throws -> [CancelMark]
}
