import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// Cancels that overtook their trigger.
///
/// Events do not reach the trigger stage in the order they happened: a trigger may wait in
/// the bulk lane while a later cancelling event of the same subscriber goes through the
/// interactive one, and two workers may take a trigger and its cancel at the same time. So
/// each handled event that may cancel runs leaves a ``CancelMark`` (the latest per subscriber
/// and name), and a run started afterwards replays the marks at or after its trigger's time:
/// one that cancels it makes the run start cancelled, with nothing sent, as if the events had
/// been handled in order.
struct CancelMarks {
    /// The batch's subscribers' marks, by tenant and subscriber.
    private var marks: [String: [CancelMark]] = [:]

    /// Holds the subscribers of `items` (events that may start or cancel runs) for the rest of
    /// the transaction, in tenants that have cancelling workflows, before anything is read.
    /// Marks alone do not order two workers that take a trigger and its cancel at the same
    /// time: neither transaction sees the other's uncommitted run or mark, so the run would
    /// start and the cancel find nothing. Held, the second waits for the first to commit and
    /// then sees its run (and cancels it) or its mark (and starts the run cancelled).
    static func holdSubscribers(of items: [EventProcessor.Item], lookups: BatchLookups, tx: any StoreTransaction) throws {
        for (tenantId, group) in Dictionary(grouping: items, by: \.tenantId).sorted(by: { $0.key < $1.key }) {
            guard try lookups.hasCancellingWorkflows(tenantId: tenantId) else { continue }
            try tx.holdSubscribers(tenantId: tenantId, group.map(\.event.subscriberId))
        }
    }

    /// Records the marks of the batch's cancelling events and reads those of the subscribers
    /// whose events may start runs (one statement each per tenant; nothing for a tenant
    /// without cancelling workflows).
    static func exchange(_ items: [EventProcessor.Item], lookups: BatchLookups, tx: any StoreTransaction, now: Date) throws -> CancelMarks {
        var result = CancelMarks()
        for (tenantId, group) in Dictionary(grouping: items, by: \.tenantId) {
            let cancelling = try group.filter { try lookups.cancels(tenantId: tenantId, event: $0.event.event) }
            guard try lookups.hasCancellingWorkflows(tenantId: tenantId) else { continue }
            try tx.recordCancelMarks(tenantId: tenantId, cancelling.map { CancelMark($0.event, now: now) })
            for mark in try tx.cancelMarks(tenantId: tenantId, subscriberIds: group.map(\.event.subscriberId)) {
                result.marks[tenantId + "\u{0}" + mark.subscriberId, default: []].append(mark)
            }
        }
        return result
    }

    /// Replays on a new `run` the marks of its subscriber later than its trigger's time (its
    /// timestamp, or when it was handled if that is earlier; compared in the milliseconds
    /// events carry, so a cancel stamped the same instant as the trigger is taken as earlier,
    /// as a batch that lists it first means), oldest first. Returns the actions
    /// to persist: `startActions` as they are, or, when a mark cancelled the run, without
    /// anything sent to a device.
    func apply(to run: inout RunRecord, startActions: [RunAction], tenantId: String, now: Date) -> [RunAction] {
        let since = Self.milliseconds(min(run.state.trigger.timestamp, now))
        let candidates = (marks[tenantId + "\u{0}" + (run.subscriberId ?? "")] ?? [])
            .filter { Self.milliseconds($0.at) > since && run.cancelEvents.contains($0.event) }
            .sorted { $0.at < $1.at }
        guard !candidates.isEmpty else { return startActions }
        var state = run.state
        var more: [RunAction] = []
        for mark in candidates where state.status != .cancelled {
            more += state.handle(.event(mark.asEvent), now: now)
        }
        guard state.status == .cancelled else { return startActions }
        run.state = state
        return (startActions + more).filter { !$0.isSend }
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
