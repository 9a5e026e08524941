import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// What the console reads beyond the run summary.
extension RunCommands {
    /// A run's timeline: its summary, the run as stored (the trigger event, the subscriber's
    /// zone) and every device's standing on each of its plans (acknowledged and released, with
    /// times, and whether the device still counts), read in one transaction so the summary and
    /// the devices agree. Nil for a run the tenant does not have.
    public func timeline(tenantId: String, runId: UUID) throws -> (run: RunRecord, summary: RunSummary, holdings: [PlanHolding])? {
        try context.store.transaction { tx in
            guard let stored = try tx.run(runId, tenantId: tenantId) else { return nil }
            let run = try PendingFacts.folded(stored, tx: tx)
            let summary = run.state.summary.attaching(try tx.activity(tenantId: tenantId, runIds: [run.id])[run.id] ?? RunActivity())
            let windows = run.subscriberId.map { subscriberId in
                run.state.steps.compactMap(\.local).map { WindowKey(subscriberId: subscriberId, runId: run.id, localId: $0.localId) }
            } ?? []
            let holdings = windows.isEmpty ? [] : try tx.acknowledgments(tenantId: tenantId, windows: windows)[run.id] ?? []
            return (run, summary, holdings.sorted { ($0.localId, $0.acknowledgedAt, $0.device) < ($1.localId, $1.acknowledgedAt, $1.device) })
        }
    }

    /// The tenant's pushes and decided windows per minute over the `minutes` before now, every
    /// minute present (zeros where nothing happened), oldest first.
    public func minuteActivity(tenantId: String, minutes: Int) throws -> [MinuteActivity] {
        let until = context.clock.now
        let since = MinuteActivity.minute(of: until.addingTimeInterval(-Double(max(1, minutes) - 1) * 60))
        let found = try context.store.transaction { try $0.minuteActivity(tenantId: tenantId, since: since, until: until) }
        return MinuteActivity.series(found, since: since, until: until)
    }
}
