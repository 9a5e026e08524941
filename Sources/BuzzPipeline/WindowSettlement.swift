import BuzzEngine
import BuzzServerCore
import BuzzStore
import Foundation

/// The scheduler's half of the fallback check: a local window that a device holds needs no
/// work at its moment.
///
/// When a due timer names its window (``OutboxMessage/window``: the decision ends the run),
/// the scheduler reads the window's acknowledgments in the same transaction that claims the
/// timer and applies the counting rule the fallback check applies (``PlanHolding``): some
/// device that still counts for the subscriber acknowledged the plan and has not released it.
/// Then the window is settled "scheduled on device": a ``WindowDecision`` row replaces the
/// queue message, and the run is written later (``WindowCompleter``). Every other window (no
/// acknowledgment, a release, a logged-out device, an erased subscriber) is published to
/// `fallback-check` as before, where the worker decides and sends the fallback.
///
/// So a 07:00 burst costs one acknowledgment lookup per claimed batch for the acknowledged
/// windows, instead of a queue message, a run read and a run write each.
///
/// ``settle(_:tx:now:)`` is the rule over any ``StoreTransaction`` (the in-memory outbox uses
/// it). ``PostgresOutbox`` applies the same rule inside its claim statement, so a settled row
/// never leaves PostgreSQL: no body returned and decoded, no acknowledgment rows sent to the
/// scheduler and back as a decision. `WindowSettlementRuleIntegrationTests` holds the two to
/// the same answers, case by case.
public enum WindowSettlement {
    /// A claimed timer row that names its window.
    public struct Due: Sendable {
        public var rowId: Int64
        public var window: OutboxMessage.Window

        public init(rowId: Int64, window: OutboxMessage.Window) { (self.rowId, self.window) = (rowId, window) }
    }

    /// Settles the windows of `due` that a device holds, recording their decisions at `now`
    /// inside `tx`; returns the row ids settled (not to be published).
    public static func settle(_ due: [Due], tx: any StoreTransaction, now: Date) throws -> Set<Int64> {
        guard !due.isEmpty else { return [] }
        var settled: Set<Int64> = []
        var decisions: [WindowDecision] = []
        for (tenantId, group) in Dictionary(grouping: due, by: \.window.tenantId) {
            let holdings = try tx.acknowledgments(tenantId: tenantId, windows: group.map {
                WindowKey(subscriberId: $0.window.subscriberId, runId: $0.window.runId, localId: $0.window.localId)
            })
            for item in group {
                let window = item.window
                guard let (input, at) = PlanHolding.standing(localId: window.localId, messageId: PayloadBuilder.messageId(localId: window.localId),
                                                             holdings: holdings[window.runId] ?? []),
                      case .acknowledged = input else { continue }
                settled.insert(item.rowId)
                decisions.append(WindowDecision(runId: window.runId, localId: window.localId, decidedAt: now, acknowledgedAt: at))
            }
        }
        try tx.recordWindowDecisions(decisions)
        return settled
    }
}
