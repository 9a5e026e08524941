import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// `fallback-check`'s decision for a window whose decision ends its run, made without loading
/// the run: the worker's half of deciding a 07:00 burst outside the runs (the scheduler's half
/// is ``WindowSettlement``).
///
/// A timer that names its window (``PipelineMessage/Window``) reaches `fallback-check` when no
/// device held the plan as the scheduler claimed it. For such a window the run's stored state
/// holds nothing the decision needs: the acknowledgments are in their own table, the plan's
/// content in `local_plans`, and once decided the run has nothing left to do. So the worker
/// locks the run's row without reading its state, looks at the acknowledgments again (one
/// may have been recorded since the scheduler looked), and then either records "scheduled on
/// device" or sends the fallback, built from the plan as it was sent, to every active device
/// with the same idempotency key and collapse id as ever, and records it with its reason. Both
/// become ``WindowDecision`` rows, written into the runs later by the ``WindowCompleter``
/// (every stage that locks the run, and the summary, fold them in first, see ``PendingFacts``).
///
/// What this saves at the moment is the run's state read, decoded, encoded and written back,
/// which was most of the fallback check's cost. Anything out of the ordinary (the run
/// cancelled, completed or failed, another subscriber, the plan's row unreadable) is left to
/// the full path, which hands the run to the engine.
enum WindowFallbacks {
    /// Decides the items of `items` that name their window and whose run waits on it, inside
    /// `tx`, with their runs row-locked; returns the items left for the full path. A window
    /// already decided (a redelivered timer) is dropped: its decision and fallback are
    /// committed. That is found by recording the decision first (a repeat is not recorded),
    /// not by looking the decisions up: a redelivery is rare, a lookup is paid by every batch.
    static func decide(_ items: [TimerProcessor.Item], context: PipelineContext, tx: any StoreTransaction, now: Date) throws -> [TimerProcessor.Item] {
        guard items.contains(where: { $0.window != nil }) else { return items }
        // Every run of the batch at once, in id order: the full path then locks rows it holds.
        var heads: [UUID: RunHead] = [:]
        for head in try tx.lockRunHeads(items.map(\.runId)) { heads[head.id] = head }
        var rest: [TimerProcessor.Item] = []
        var candidates: [(item: TimerProcessor.Item, window: PipelineMessage.Window, stepName: String)] = []
        var seen: Set<String> = []
        for item in items {
            guard let window = item.window, item.timer.purpose == .localWindowDue else { rest.append(item); continue }
            guard seen.insert(window.localId).inserted else { continue }  // the same timer twice in one batch
            let prefix = item.runId.lowercasedText + "/"
            guard let head = heads[item.runId], head.tenantId == item.tenantId, head.status == .waiting,
                  head.subscriberId == window.subscriberId, window.localId.hasPrefix(prefix) else {
                rest.append(item)
                continue
            }
            candidates.append((item, window, String(window.localId.dropFirst(prefix.count))))
        }
        try WindowVerdicts.lock(candidates.map { ($0.item.tenantId, $0.window.localId) }, tx: tx)
        var decisions: [WindowDecision] = []
        var alerts: [(decision: WindowDecision, message: PipelineMessage)] = []
        for (tenantId, group) in Dictionary(grouping: candidates, by: \.item.tenantId) {
            let holdings = try tx.acknowledgments(tenantId: tenantId, windows: group.map {
                WindowKey(subscriberId: $0.window.subscriberId, runId: $0.item.runId, localId: $0.window.localId)
            })
            let payloads = try tx.planPayloads(tenantId: tenantId, localIds: group.map(\.window.localId))
            for (item, window, stepName) in group {
                let localId = window.localId
                let standing = PlanHolding.standing(localId: localId, messageId: PayloadBuilder.messageId(localId: localId),
                                                    holdings: holdings[item.runId] ?? [])
                var reason = RunSummary.LocalWindow.Fallback.noConfirmation
                switch standing?.0 {
                case .acknowledged?:
                    decisions.append(WindowDecision(runId: item.runId, localId: localId, decidedAt: now, acknowledgedAt: standing?.1 ?? now))
                    continue
                case .released(_, _, let released)?:
                    reason = released
                default:
                    break
                }
                guard let plan = payloads[localId].flatMap({ try? SilentPlanPayload(jsonData: $0).local }), plan.id == localId,
                      let encoded = try? PayloadBuilder.fallback(for: plan) else {
                    rest.append(item)
                    continue
                }
                let delivery = AlertDelivery(runId: item.runId.lowercasedText, stepName: stepName,
                                             idempotencyKey: PayloadBuilder.fallbackIdempotencyKey(localId: localId), reason: reason, encoded: encoded,
                                             expiresAt: plan.expiresAt)
                let decision = WindowDecision(runId: item.runId, localId: localId, decidedAt: now, fallbackReason: reason)
                alerts.append((decision, .sendAlert(tenantId: tenantId, runId: item.runId, subscriberId: window.subscriberId, fallback: true, delivery: delivery)))
                decisions.append(decision)
            }
        }
        let recorded = Set(try tx.recordWindowDecisions(decisions))
        let sent = alerts.filter { recorded.contains($0.decision) }
        let tenants = Dictionary(candidates.map { ($0.window.localId, $0.item.tenantId) }, uniquingKeysWith: { first, _ in first })
        try WindowVerdicts.markFallbacks(sent.compactMap { alert in tenants[alert.decision.localId].map { ($0, alert.decision.localId) } },
                                         tx: tx, now: now)
        let sending = sent.map(\.message)
        if !sending.isEmpty { try SendProcessor(context: context).send(sending, tx: tx, now: now, mode: .runsLocked) }
        let help = "Local windows decided at their moment"
        context.metrics.increment("buzzkit_fallback_checks_total", ["outcome": "fallback"], by: Double(sending.count), help: help)
        context.metrics.increment("buzzkit_fallback_checks_total", ["outcome": "confirmed"], by: Double(recorded.count - sending.count), help: help)
        context.metrics.increment("buzzkit_windows_decided_outside_run_total", by: Double(recorded.count),
                                  help: "Windows fallback-check decided without loading their run (written into it later by the window completer)")
        return rest
    }
}
