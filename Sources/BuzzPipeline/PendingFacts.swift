import BuzzEngine
import BuzzServerCore
import BuzzStore
import Foundation

/// Facts about a run's local windows that other stages record in tables of their own, and
/// that reach the run the next time it is handled: how many devices were sent each plan
/// (`deliveries`, written by `plan-dispatch`) and which devices hold each plan
/// (`acknowledgments`, written by `ack-ingest` from `$local.scheduled` and `$local.released`).
/// Neither stage locks or rewrites the run, so a window costs two run writes (start, decision)
/// instead of four. The fallback check, a cancel and the run summary (`GET /v1/runs/{id}`)
/// fold them in first. So do the decisions made at the moment outside the run
/// (``WindowDecider``), which the stored state never learns: a run reads as decided wherever
/// it is read, and is rewritten with its decision only if a later stage changes it anyway.
package enum PendingFacts {
    /// Feeds the facts recorded for `runs` into them; returns the actions they caused, by run
    /// (only runs whose state changed are listed).
    @discardableResult
    package static func fold(into runs: inout [UUID: RunRecord], tx: any StoreTransaction) throws -> [UUID: [RunAction]] {
        let withWindows = runs.values.filter { run in run.state.steps.contains { $0.local?.planSent == true } }
        guard !withWindows.isEmpty else { return [:] }
        let localIds = withWindows.flatMap { $0.state.steps.compactMap { $0.local?.planSent == true ? $0.local?.localId : nil } }
        let counts = try tx.planDeliveryCounts(localIds: localIds)
        var holdings: [UUID: [PlanHolding]] = [:]
        for (tenantId, group) in Dictionary(grouping: withWindows, by: \.tenantId) {
            let windows = group.flatMap { run in
                run.subscriberId.map { subscriberId in
                    run.state.steps.compactMap { step in
                        step.local?.planSent == true ? step.local.map { WindowKey(subscriberId: subscriberId, runId: run.id, localId: $0.localId) } : nil
                    }
                } ?? []
            }
            holdings.merge(try tx.acknowledgments(tenantId: tenantId, windows: windows)) { a, _ in a }
        }
        // Windows decided at their moment outside the run: only a run still waiting on a
        // settleable window can have one.
        let decisions = try tx.windowDecisions(runIds: withWindows.filter { $0.state.settleableWindow != nil }.map(\.id))
        var caused: [UUID: [RunAction]] = [:]
        for run in withWindows {
            var updated = run
            var actions: [RunAction] = []
            for step in run.state.steps {
                guard let window = step.local, window.planSent, let count = counts[window.localId], count > window.planSentTo else { continue }
                actions += updated.state.handle(.planDelivered(localId: window.localId, deviceCount: count), now: Date(timeIntervalSince1970: 0))
            }
            // Before the acknowledgments as they stand now: the decision was made at the
            // moment, and a release after it changes nothing.
            for decision in decisions[run.id] ?? [] { actions += decision.apply(to: &updated.state) }
            for step in updated.state.steps {
                guard let window = step.local, window.planSent,
                      let (input, at) = PlanHolding.standing(of: window, holdings: holdings[run.id] ?? []) else { continue }
                actions += updated.state.handle(input, now: at)
            }
            guard updated.state != run.state else { continue }
            runs[run.id] = updated
            caused[run.id] = actions
        }
        return caused
    }

    /// `run` with its pending facts folded in (for reading: nothing is written).
    static func folded(_ run: RunRecord, tx: any StoreTransaction) throws -> RunRecord {
        var runs = [run.id: run]
        try fold(into: &runs, tx: tx)
        return runs[run.id] ?? run
    }
}
