import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// What the console reads beyond the run summary.
extension RunCommands {
    /// A run's timeline: its summary, the run as stored (the trigger event, the subscriber's
    /// zone) and every device's standing on each of its plans (acknowledged and released, with
    /// times, and whether the device still counts). Nil for a run the tenant does not have.
    public func timeline(tenantId: String, runId: UUID) throws -> (run: RunRecord, summary: RunSummary, holdings: [PlanHolding])? {
        guard let run = try summary(tenantId: tenantId, runId: runId) else { return nil }
        let summary = try summaries(tenantId: tenantId, of: [run])[0]
        guard let subscriberId = run.subscriberId else { return (run, summary, []) }
        let windows = run.state.steps.compactMap(\.local).map { WindowKey(subscriberId: subscriberId, runId: run.id, localId: $0.localId) }
        guard !windows.isEmpty else { return (run, summary, []) }
        let holdings = try context.store.transaction { try $0.acknowledgments(tenantId: tenantId, windows: windows) }
        return (run, summary, (holdings[run.id] ?? []).sorted { ($0.localId, $0.acknowledgedAt, $0.device) < ($1.localId, $1.acknowledgedAt, $1.device) })
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
