import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// The one place a local window whose plan went out is decided at its moment: acknowledged →
/// "scheduled on device", otherwise the fallback. The counting rule is ``PlanHolding``'s,
/// applied to the acknowledgments table as it stands in the deciding transaction; the decision
/// becomes a ``WindowDecision`` row, and the run learns it from there (every stage that locks
/// the run, and the summary, fold it in first, see ``PendingFacts``; the ``WindowCompleter``
/// writes it into the run off the moment).
///
/// It decides in steps, each for the windows it can:
/// - **The scheduler, as it claims the timers** (``settleHeld(_:tx:now:)``): a window that ends
///   its run and that some device holds is settled "scheduled on device" in the claim's
///   transaction, and its timer is not published. The claim reads the windows' acknowledgments
///   with the rows (``DueWindow/holdings``), so a 07:00 burst of acknowledged windows costs a
///   decision row each, instead of a queue message, a run read and a run write.
/// - **`fallback-check`, for the rest of the windows that end their runs**
///   (``decide(_:context:tx:now:)`` over timer items): the worker locks the runs' rows without
///   reading their state, locks the plans' rows against an acknowledgment being recorded
///   (``WindowVerdicts``), looks at the acknowledgments again (one recorded since the scheduler
///   looked still counts), and either records "scheduled on device" or sends the fallback,
///   built from the plan as it was sent (`local_plans`), to every active device with the same
///   idempotency key and collapse id as ever, and records it with its reason, in the same
///   transaction as the sends. The run is not loaded: once decided it has nothing left to do.
/// - **`fallback-check`'s full path** (``decide(_:context:tx:now:)`` over candidates): a
///   window with steps after it, or a timer that names no window, is decided the same way
///   with its run loaded, and ``TimerProcessor`` feeds the decision into the run at once.
///
/// The engine decides only a window that has no acknowledgment to count (its plan never went
/// out: a dry run, no subscriber, a moment already past), or one whose plan's row cannot be read.
package enum WindowDecider {
    /// The scheduler's step: settles the windows of `due` that a device holds by the
    /// acknowledgments the claim read with them, recording their decisions at `now` inside
    /// `tx`; returns the row ids settled (not to be published).
    package static func settleHeld(_ due: [DueWindow], tx: any StoreTransaction, now: Date) throws -> Set<Int64> {
        var settled: Set<Int64> = []
        var decisions: [WindowDecision] = []
        for item in due {
            let window = item.window
            guard let (input, at) = PlanHolding.standing(localId: window.localId, messageId: window.messageId, holdings: item.holdings),
                  case .acknowledged = input else { continue }
            settled.insert(item.rowId)
            decisions.append(WindowDecision(runId: window.runId, localId: window.localId, decidedAt: now, acknowledgedAt: at))
        }
        try tx.recordWindowDecisions(decisions, learntByRuns: false)
        return settled
    }

    /// A window `fallback-check` decides: the timer's item, and the window's subscriber,
    /// local id and step.
    struct Candidate {
        var item: TimerProcessor.Item
        var subscriberId: String
        var localId: String
        var stepName: String
    }

    /// `fallback-check`: decides the items of `items` that name their window and whose run
    /// waits on it, inside `tx`, with their runs row-locked but not loaded; returns the items
    /// left for ``TimerProcessor``'s full path (a run with a pending cancel (``CancelMarks``),
    /// a run cancelled, completed or failed meanwhile,
    /// another subscriber, a plan whose row is unreadable, a timer that names no window). A
    /// window already decided (a redelivered timer) is dropped: its decision and fallback are
    /// committed. That is found by recording the decision first (a repeat is not recorded),
    /// not by looking the decisions up: a redelivery is rare, a lookup is paid by every batch.
    static func decide(_ items: [TimerProcessor.Item], context: PipelineContext, tx: any StoreTransaction, now: Date) throws -> [TimerProcessor.Item] {
        guard items.contains(where: { $0.window != nil }) else { return items }
        // Every run of the batch at once, in id order: the full path then locks rows it holds.
        var heads: [UUID: RunHead] = [:]
        for head in try tx.lockRunHeads(items.map(\.runId)) { heads[head.id] = head }
        var rest: [TimerProcessor.Item] = []
        var candidates: [Candidate] = []
        var seen: Set<String> = []
        for item in items {
            guard let window = item.window, item.timer.purpose == .localWindowDue else { rest.append(item); continue }
            guard seen.insert(window.localId).inserted else { continue }  // the same timer twice in one batch
            let prefix = item.runId.lowercasedText + "/"
            guard let head = heads[item.runId], head.tenantId == item.tenantId, head.status == .waiting, !head.cancelPending,
                  head.subscriberId == window.subscriberId, window.localId.hasPrefix(prefix) else {
                rest.append(item)
                continue
            }
            candidates.append(Candidate(item: item, subscriberId: window.subscriberId, localId: window.localId,
                                        stepName: String(window.localId.dropFirst(prefix.count))))
        }
        let (recorded, undecided) = try decide(candidates, runsLoaded: false, context: context, tx: tx, now: now)
        context.metrics.increment("buzzkit_windows_decided_outside_run_total", by: Double(recorded.count),
                                  help: "Windows fallback-check decided without loading their run (which learns the decision on read)")
        return rest + undecided.map(\.item)
    }

    /// Decides `candidates`, whose runs the caller holds locked: the plans' rows locked against
    /// an acknowledgment being recorded (``WindowVerdicts``), the acknowledgments read, the
    /// decisions recorded, and the fallbacks of the windows recorded now sent, in `tx`. Returns
    /// the decisions recorded now (a window decided before is not recorded again, and sends
    /// nothing), and the candidates it could not decide (the plan's row unreadable).
    /// `runsLoaded`: the caller feeds the decisions into the runs and writes them (the full
    /// path); otherwise the runs learn them on read, and the window completer files them.
    static func decide(_ candidates: [Candidate], runsLoaded: Bool, context: PipelineContext, tx: any StoreTransaction, now: Date)
        throws -> (recorded: [WindowDecision], undecided: [Candidate]) {
        guard !candidates.isEmpty else { return ([], []) }
        try WindowVerdicts.lock(candidates.map { ($0.item.tenantId, $0.localId) }, tx: tx)
        var undecided: [Candidate] = []
        var decisions: [WindowDecision] = []
        var alerts: [(decision: WindowDecision, message: PipelineMessage)] = []
        for (tenantId, group) in Dictionary(grouping: candidates, by: \.item.tenantId) {
            let holdings = try tx.acknowledgments(tenantId: tenantId, windows: group.map {
                WindowKey(subscriberId: $0.subscriberId, runId: $0.item.runId, localId: $0.localId)
            })
            let payloads = try tx.planPayloads(tenantId: tenantId, localIds: group.map(\.localId))
            for candidate in group {
                let (runId, localId) = (candidate.item.runId, candidate.localId)
                let standing = PlanHolding.standing(localId: localId, messageId: PayloadBuilder.messageId(localId: localId),
                                                    holdings: holdings[runId] ?? [])
                var reason = RunSummary.LocalWindow.Fallback.noConfirmation
                switch standing?.0 {
                case .acknowledged?:
                    decisions.append(WindowDecision(runId: runId, localId: localId, decidedAt: now, acknowledgedAt: standing?.1 ?? now))
                    continue
                case .released(_, _, let released)?:
                    reason = released
                default:
                    break
                }
                guard let plan = payloads[localId].flatMap({ try? SilentPlanPayload(jsonData: $0).local }), plan.id == localId,
                      let encoded = try? PayloadBuilder.fallback(for: plan) else {
                    undecided.append(candidate)
                    continue
                }
                let delivery = AlertDelivery(runId: runId.lowercasedText, stepName: candidate.stepName,
                                             idempotencyKey: PayloadBuilder.fallbackIdempotencyKey(localId: localId), reason: reason, encoded: encoded,
                                             expiresAt: plan.expiresAt)
                let decision = WindowDecision(runId: runId, localId: localId, decidedAt: now, fallbackReason: reason)
                alerts.append((decision, .sendAlert(tenantId: tenantId, runId: runId, subscriberId: candidate.subscriberId, fallback: true, delivery: delivery)))
                decisions.append(decision)
            }
        }
        let recorded = try tx.recordWindowDecisions(decisions, learntByRuns: runsLoaded)
        let isNew = Set(recorded)
        let sent = alerts.filter { isNew.contains($0.decision) }
        let tenants = Dictionary(candidates.map { ($0.localId, $0.item.tenantId) }, uniquingKeysWith: { first, _ in first })
        try WindowVerdicts.markFallbacks(sent.compactMap { alert in tenants[alert.decision.localId].map { ($0, alert.decision.localId) } },
                                         tx: tx, now: now)
        let sending = sent.map(\.message)
        if !sending.isEmpty { try SendProcessor(context: context).send(sending, tx: tx, now: now, mode: .runsLocked) }
        let help = "Local windows decided at their moment"
        context.metrics.increment("buzzkit_fallback_checks_total", ["outcome": "fallback"], by: Double(sending.count), help: help)
        context.metrics.increment("buzzkit_fallback_checks_total", ["outcome": "confirmed"], by: Double(recorded.count - sending.count), help: help)
        return (recorded, undecided)
    }
}
