import BuzzEngine
import BuzzServerCore
import Foundation

/// A local window decided at its moment outside its run: a row of `window_decisions`, written
/// by the pipeline's `WindowDecider` alone ("scheduled on device" as the scheduler claims the
/// timer, or at `fallback-check` with the fallback it sent), for a window that ends its run.
/// The run learns it once, on read: every stage that reads the run folds it in first
/// (``apply(to:)``, through the pipeline's `PendingFacts`), and the stored state is not
/// rewritten for it. The window completer only files the run under `completed`
/// (``StoreTransaction/completeDecidedRuns(decidedBefore:limit:)``).
public struct WindowDecision: Sendable, Hashable {
    public var runId: UUID
    /// `<runId>/<stepName>`.
    public var localId: String
    /// When the window was decided (server clock, at or just after the moment).
    public var decidedAt: Date
    /// When the acknowledgment that counted was recorded (the summary's `acknowledgedAt`);
    /// nil when the fallback went out.
    public var acknowledgedAt: Date?
    /// Why the fallback went out (the summary's `fallback.reason`); nil when a device held the plan.
    public var fallbackReason: String?

    /// "Scheduled on device": a device held the plan, acknowledged at `acknowledgedAt`.
    public init(runId: UUID, localId: String, decidedAt: Date, acknowledgedAt: Date) {
        self.runId = runId
        self.localId = localId
        self.decidedAt = decidedAt
        self.acknowledgedAt = acknowledgedAt
    }

    /// The fallback, sent for `reason`.
    public init(runId: UUID, localId: String, decidedAt: Date, fallbackReason: String) {
        self.runId = runId
        self.localId = localId
        self.decidedAt = decidedAt
        self.fallbackReason = fallbackReason
    }

    /// A row as stored: exactly one of `acknowledgedAt` and `fallbackReason` is set.
    init(runId: UUID, localId: String, decidedAt: Date, acknowledgedAt: Date?, fallbackReason: String?) {
        self.runId = runId
        self.localId = localId
        self.decidedAt = decidedAt
        self.acknowledgedAt = acknowledgedAt
        self.fallbackReason = acknowledgedAt == nil ? (fallbackReason ?? "") : nil
    }

    /// Feeds the decision into `state`; returns the actions it caused (the run's next steps;
    /// never the fallback, which the decider sent). Nothing changes where the window is no
    /// longer the one the run waits on (it learnt the decision before, or was cancelled).
    public func apply(to state: inout RunState) -> [RunAction] {
        if let acknowledgedAt {
            return state.settleAcknowledged(localId: localId, acknowledgedAt: acknowledgedAt, decidedAt: decidedAt)
        }
        return state.settleUnacknowledged(localId: localId, reason: fallbackReason ?? "", decidedAt: decidedAt)
    }
}
