import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The pipeline's storage port. Everything a worker changes for one message happens inside
/// one ``transaction(_:)``: it commits together (state, acknowledgments, outbox rows, timers)
/// or not at all. ``PostgresStore`` is the real one; ``InMemoryStore`` serves unit tests.
public protocol Store: Sendable {
    /// Runs `body` in a transaction; a thrown error rolls everything back.
    func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
}

/// The operations available inside a transaction.
public protocol StoreTransaction {
    // Tenants, subscribers, devices, workflows.
    func tenant(_ id: String) throws -> TenantRecord?
    func subscriber(tenantId: String, id: String) throws -> SubscriberRecord?
    /// The subscribers of one tenant among `ids` (those that exist), in one round trip.
    func subscribers(tenantId: String, ids: [String]) throws -> [SubscriberRecord]
    func activeDevices(tenantId: String, subscriberId: String) throws -> [DeviceRecord]
    /// Active devices of many subscribers of one tenant, by subscriber id.
    func activeDevices(tenantId: String, subscriberIds: [String]) throws -> [String: [DeviceRecord]]
    /// Turns a device inactive at `at`. `deadSince`: when APNs last found the token invalid
    /// (its 410's `timestamp`); a device that registered again after that instant keeps its
    /// token. Nil: unconditionally.
    func deactivateDevice(_ id: UUID, reason: String, at: Date, deadSince: Date?) throws
    /// Current workflow versions whose trigger is `event`.
    func workflows(tenantId: String, triggeredBy event: String) throws -> [WorkflowRecord]
    /// Every event name that a current workflow of the tenant cancels on (a cheap filter
    /// before looking for open runs to cancel).
    func cancelEventNames(tenantId: String) throws -> Set<String>
    /// The current version of the workflow `key`.
    func currentWorkflow(tenantId: String, key: String) throws -> WorkflowRecord?

    // Runs.
    func insertRun(_ run: RunRecord) throws
    /// Inserts several runs in one statement.
    func insertRuns(_ runs: [RunRecord]) throws
    /// The run, locked until the transaction ends (`SELECT … FOR UPDATE`).
    func lockRun(_ id: UUID) throws -> RunRecord?
    /// The run of `tenantId`, read without a lock (nil for another tenant's).
    func run(_ id: UUID, tenantId: String) throws -> RunRecord?
    /// The run locked only if it belongs to `tenantId` (another tenant's row is never locked).
    func lockRun(_ id: UUID, tenantId: String) throws -> RunRecord?
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
    /// Open runs of the subscriber that `event` may cancel.
    func openRuns(tenantId: String, subscriberId: String, cancelEvent: String) throws -> [UUID]
    /// Keeps the latest mark per subscriber and event name (an older one never replaces a newer).
    func recordCancelMarks(tenantId: String, _ marks: [CancelMark]) throws
    /// Every mark of the given subscribers.
    func cancelMarks(tenantId: String, subscriberIds: [String]) throws -> [CancelMark]

    // Idempotency and acknowledgments.
    /// Records many event ids at once; returns those seen for the first time.
    func markEventsProcessed(tenantId: String, eventIds: [String], at: Date) throws -> Set<String>
    /// Records the `$local.scheduled` and `$local.released` of one tenant in one statement,
    /// one row per subscriber, plan and device, keeping each device's latest time of each kind
    /// (so order and repeats do not matter); `at` is the server's time. Returns how many
    /// acknowledgments and releases moved a device's standing forward (new ones, not repeats).
    /// An acknowledgment of a window whose fallback was decided (``markFallbacksDecided(tenantId:localIds:at:)``)
    /// is not recorded and comes back in ``AcknowledgmentOutcome/late``; recording waits for a
    /// decision under way on the same window (``lockWindowsForDecision(tenantId:localIds:)``).
    func recordAcknowledgments(tenantId: String, _ facts: [DeviceAcknowledgment], at: Date) throws -> AcknowledgmentOutcome
    /// Locks the plans of windows about to be decided at their moment, before their
    /// acknowledgments are read: an acknowledgment being recorded meanwhile is either seen by
    /// the decision or waits for it (and is then late if the fallback was decided).
    func lockWindowsForDecision(tenantId: String, localIds: [String]) throws
    /// Records that these windows' fallbacks were decided (inside the transaction that locked
    /// them): later acknowledgments of them are late.
    func markFallbacksDecided(tenantId: String, localIds: [String], at: Date) throws
    /// Every device's standing on the given plans (each by its run's subscriber), by run id,
    /// with whether the device still counts for that subscriber.
    func acknowledgments(tenantId: String, windows: [WindowKey]) throws -> [UUID: [PlanHolding]]
    /// The tenant's pushes sent and failed, and its windows decided, per minute from `since`
    /// to `until` (minutes with nothing are missing; ``MinuteActivity/series(_:since:until:)``
    /// fills them in).
    func minuteActivity(tenantId: String, since: Date, until: Date) throws -> [MinuteActivity]
    /// How many devices were sent each plan (deliveries of kind `plan` that APNs accepted),
    /// by local id; plans sent to none are missing.
    func planDeliveryCounts(localIds: [String]) throws -> [String: Int]
    /// Row-locks the runs, in id order as the other stages lock them, without reading their
    /// state; runs that do not exist are missing.
    func lockRunHeads(_ ids: [UUID]) throws -> [RunHead]
    /// Each plan's silent push as it was sent (`local_plans`), by local id.
    func planPayloads(tenantId: String, localIds: [String]) throws -> [String: Data]
    /// Records windows decided at their moment outside their runs; returns those recorded. A
    /// window already decided keeps its first decision, and is left out of the answer.
    @discardableResult
    func recordWindowDecisions(_ decisions: [WindowDecision]) throws -> [WindowDecision]
    /// The decisions waiting for the given runs, by run id.
    func windowDecisions(runIds: [UUID]) throws -> [UUID: [WindowDecision]]
    /// Takes up to `limit` decisions made before `decidedBefore`, oldest first, skipping those
    /// another transaction holds: returns them and deletes them, for the caller to write into
    /// their runs in the same transaction.
    func takeWindowDecisions(decidedBefore: Date, limit: Int) throws -> [WindowDecision]
    /// Records a plan handed to devices (the `local_plans` table).
    func recordPlan(tenantId: String, subscriberId: String?, delivery: LocalPlanDelivery, at: Date) throws
    /// Records several plans in one statement.
    func recordPlans(_ plans: [SentPlan], at: Date) throws
    /// Records a `$push.opened`.
    func recordOpen(tenantId: String, subscriberId: String, messageId: String, at: Date) throws
    /// Records a `$push.action` (a button chosen at `at`), for a message sent for one of the
    /// subscriber's runs only.
    func recordAction(tenantId: String, subscriberId: String, messageId: String, actionId: String, at: Date) throws

    // Messages.
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

    // Deliveries.
    /// Claims (idempotency key, device) pairs for sending (see ``DeliveryClaim``), in the
    /// order given, holding their row locks until the transaction ends, so a concurrent
    /// duplicate waits and then finds them done. Returns one claim per request.
    func claimDeliveries(_ requests: [DeliveryRequest], at: Date) throws -> [DeliveryClaim]
    /// Records sends made without a claim, with their answers: alerts of runs the transaction
    /// holds locked (``SendProcessor``). A pair already recorded keeps its row unless that
    /// send failed.
    func recordDeliveries(_ deliveries: [DeliveryResult], at: Date) throws
    /// Records the answers of sends.
    func finishDeliveries(_ outcomes: [DeliveryResult], at: Date) throws
    /// Devices that were sent a plan of the run (they need the `bk.cancel`) and are still
    /// active for the run's subscriber.
    func planRecipients(runId: UUID) throws -> [DeviceRecord]
}
