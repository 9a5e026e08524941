import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The part of ``StoreTransaction`` for local windows: the plans sent, what devices said of them,
/// and the decisions at their moments.
public protocol WindowFacts {
    /// Records a plan handed to devices (the `local_plans` table).
    func recordPlan(tenantId: String, subscriberId: String?, delivery: LocalPlanDelivery, at: Date) throws
    /// Records several plans in one statement.
    func recordPlans(_ plans: [SentPlan], at: Date) throws
    /// Each plan's silent push as it was sent (`local_plans`), by local id.
    func planPayloads(tenantId: String, localIds: [String]) throws -> [String: Data]
    /// How many devices were sent each plan (deliveries of kind `plan` that APNs accepted),
    /// by local id; plans sent to none are missing.
    func planDeliveryCounts(localIds: [String]) throws -> [String: Int]
    /// Devices that were sent a plan of the run (they need the `bk.cancel`) and are still
    /// active for the run's subscriber.
    func planRecipients(runId: UUID) throws -> [DeviceRecord]
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
    /// Records windows decided at their moment; returns those recorded. A window already
    /// decided keeps its first decision, and is left out of the answer. `learntByRuns`: the
    /// caller feeds them into their runs and writes the runs in this transaction (the runs may
    /// go on to further steps), so they are recorded filed and
    /// ``completeDecidedRuns(decidedBefore:limit:)`` leaves them alone; otherwise each decides
    /// its run's last step, and the completer files the run under `completed`.
    @discardableResult
    func recordWindowDecisions(_ decisions: [WindowDecision], learntByRuns: Bool) throws -> [WindowDecision]
    /// The decisions recorded for the given runs, by run id. They are kept for the run's
    /// life: its stored state never learns them, and every reader folds them in.
    func windowDecisions(runIds: [UUID]) throws -> [UUID: [WindowDecision]]
    /// Files the runs of up to `limit` unfiled decisions made before `decidedBefore` (oldest
    /// first, skipping those another transaction holds) under `completed`, where they still
    /// read `running` or `waiting`: each such decision decided its run's last step. Only the
    /// run's status and `updated_at` change (what run search, the console and retention read);
    /// its state is not rewritten. Each decision is taken once. Returns the decisions filed,
    /// and the runs of decisions recorded by servers from before migration 0025, which did not
    /// say whether the run goes on: their status is left alone, for the caller to fold the
    /// decisions into those runs and write them, in the same transaction.
    func completeDecidedRuns(decidedBefore: Date, limit: Int) throws -> (filed: [WindowDecision], toFold: [UUID])
}
