import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// The timer half of `plan-dispatch` (waits end) and of `fallback-check` (a local window's
/// moment: acknowledged → "scheduled on device", otherwise the fallback push). Windows whose
/// decision ends their run are decided first, without loading the runs; the rest go through
/// the runs here, where a window whose plan went out is decided by the same
/// ``WindowDecider`` and the engine learns the decision and goes on.
///
/// Alerts the timers cause (the fallback, a push step after a wait) are sent by this stage in
/// the same transaction as the decision, through ``SendProcessor``'s claims: one commit covers
/// "decided" and "sent", and a 07:00 burst costs one queue message per check, not two. If the
/// worker dies before the commit, both roll back and the redelivered timer decides and sends
/// again (APNs collapses a repeated alert by its collapse id), as a redelivered send would.
struct TimerProcessor {
    struct Item {
        var tenantId: String
        var runId: UUID
        var timer: RunTimer
        /// The window the timer decides, when that decision ends the run (``WindowDecider``).
        var window: PipelineMessage.Window? = nil
    }

    let context: PipelineContext

    /// Handles a batch of due timers in one transaction, locking their runs in id order.
    func process(_ items: [Item], tx: any StoreTransaction) throws -> [Outbox.Row] {
        let now = context.clock.now
        // Windows whose decision ends their run are decided without loading it; the run learns
        // the decision on read, and the window completer files it under completed after.
        let items = try WindowDecider.decide(items, context: context, tx: tx, now: now)
        guard !items.isEmpty else { return [] }
        let lookups = BatchLookups(tx)
        var runs: [UUID: RunRecord] = [:]
        for run in try tx.lockRuns(items.map(\.runId)) { runs[run.id] = run }
        // Windows decided here are locked before their acknowledgments are read: one being
        // recorded meanwhile is seen, or waits and is answered late (``WindowVerdicts``).
        let deciding = Set(items.filter { $0.timer.purpose == .localWindowDue }.map(\.runId))
        try WindowVerdicts.lock(runs.values.filter { deciding.contains($0.id) }.flatMap { run in
            run.state.steps.compactMap(\.local).map { (run.tenantId, $0.localId) }
        }, tx: tx)
        for (tenantId, group) in Dictionary(grouping: runs.values, by: \.tenantId) {
            try lookups.preloadSubscribers(tenantId: tenantId, ids: group.compactMap(\.subscriberId))
        }
        // Plan deliveries, acknowledgments and decisions recorded by the other stages reach the
        // runs first: a window ``WindowDecider`` already decided (its timer
        // redelivered, or republished after an outage, before the completer wrote the run) is
        // learnt here, not decided a second time.
        var pending = try PendingFacts.fold(into: &runs, tx: tx)
        var changed = Set(pending.keys)
        // Cancelling events the API accepted and the trigger stage has not handled yet cancel
        // the runs first: nothing is sent after a cancel the API took.
        let accepted = try CancelMarks.pending(for: Array(runs.values), lookups: lookups, tx: tx)
        for id in runs.keys.sortedByBytes() {
            guard var run = runs[id], !run.state.status.isFinal, let actions = accepted.cancelOpen(&run, now: now) else { continue }
            runs[id] = run
            changed.insert(id)
            pending[id, default: []] += actions
            context.metrics.increment("buzzkit_cancels_total", ["by": "accepted_event"], help: "Runs cancelled")
        }
        // A window whose plan went out is decided by the one decider, here too (a window with
        // steps after it, a timer that names no window); the run learns the decision and goes
        // on. The engine decides only a window whose plan's row the decider could not read.
        var candidates: [WindowDecider.Candidate] = []
        for item in items where item.timer.purpose == .localWindowDue {
            guard let run = runs[item.runId], run.tenantId == item.tenantId, run.state.pendingTimer == item.timer,
                  let localId = run.state.decidableWindow, let subscriberId = run.subscriberId,
                  let step = run.state.steps.last(where: { $0.local?.localId == localId }) else { continue }
            candidates.append(WindowDecider.Candidate(item: item, subscriberId: subscriberId, localId: localId, stepName: step.name))
        }
        for decision in try WindowDecider.decide(candidates, runsLoaded: true, context: context, tx: tx, now: now).recorded {
            guard var run = runs[decision.runId] else { continue }
            let actions = decision.apply(to: &run.state)
            runs[run.id] = run
            changed.insert(run.id)
            pending[run.id, default: []] += actions
        }
        for item in items {
            guard var run = runs[item.runId], run.tenantId == item.tenantId else { continue }
            let before = run.state
            try lookups.refresh(&run)
            let fired = run.state.handle(.timerFired(item.timer), now: now)
            let actions = fired
            if item.timer.purpose == .localWindowDue && !fired.isEmpty {
                let fallbacks = fired.filter { if case .sendFallback = $0 { return true } else { return false } }.count
                context.metrics.increment("buzzkit_fallback_checks_total", ["outcome": fallbacks > 0 ? "fallback" : "confirmed"],
                                          help: "Local windows decided at their moment")
            }
            if run.state != before { changed.insert(run.id) }
            runs[run.id] = run
            pending[run.id, default: []] += actions
        }
        try WindowVerdicts.markFallbacks(pending.flatMap { runId, actions in
            actions.compactMap { action -> (String, String)? in
                guard case .sendFallback(let delivery) = action, let localId = delivery.localId, let run = runs[runId] else { return nil }
                return (run.tenantId, localId)
            }
        }, tx: tx, now: now)
        let updated = changed.sortedByBytes().compactMap { runs[$0] }
        try tx.updateRuns(updated)
        var outbox = RunActions.Pending()
        for run in updated {
            try context.actions.collect(pending[run.id] ?? [], run: run, tx: tx, now: now, into: &outbox, sendAlertsInline: true)
        }
        let rows = try context.actions.flush(outbox, tx: tx, now: now)
        if !outbox.inline.isEmpty { try SendProcessor(context: context).send(outbox.inline, tx: tx, now: now, mode: .runsLocked) }
        return rows
    }
}
