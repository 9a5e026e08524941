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
///
/// The API records a mark as it accepts a cancelling event, pending until the trigger stage
/// handles it. A timer that comes before (the trigger stage lagging behind an outage or a
/// backlog) replays the pending marks on its run first (``cancelOpen(_:now:)``): a cancel
/// counts from its 202, as an acknowledgment does.
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

    /// Records the marks of the batch's cancelling events (handled now: no longer pending) and
    /// reads those of the subscribers whose events may start runs (one statement each per
    /// tenant; nothing for a tenant without cancelling workflows).
    static func exchange(_ items: [EventProcessor.Item], lookups: BatchLookups, tx: any StoreTransaction, now: Date) throws -> CancelMarks {
        var result = CancelMarks()
        for (tenantId, group) in Dictionary(grouping: items, by: \.tenantId) where try lookups.hasCancellingWorkflows(tenantId: tenantId) {
            let cancelling = try group.filter { try lookups.cancels(tenantId: tenantId, event: $0.event.event) }
            try tx.recordCancelMarks(tenantId: tenantId, cancelling.map { CancelMark($0.event, now: now) })
            result.add(try tx.cancelMarks(tenantId: tenantId, subscriberIds: group.map(\.event.subscriberId), pendingOnly: false), tenantId: tenantId)
        }
        return result
    }

    /// The pending marks (accepted by the API, not yet handled by the trigger stage) of the
    /// subscribers of `runs`, in tenants that have cancelling workflows.
    static func pending(for runs: [RunRecord], lookups: BatchLookups, tx: any StoreTransaction) throws -> CancelMarks {
        var result = CancelMarks()
        for (tenantId, group) in Dictionary(grouping: runs, by: \.tenantId) where try lookups.hasCancellingWorkflows(tenantId: tenantId) {
            result.add(try tx.cancelMarks(tenantId: tenantId, subscriberIds: group.compactMap(\.subscriberId), pendingOnly: true), tenantId: tenantId)
        }
        return result
    }

    private mutating func add(_ found: [CancelMark], tenantId: String) {
        for mark in found { marks[tenantId + "\u{0}" + mark.subscriberId, default: []].append(mark) }
    }

    /// Replays on a new `run` the marks of its subscriber later than its trigger's time (its
    /// timestamp, or when it was handled if that is earlier). Returns the actions to persist:
    /// `startActions` as they are, or, when a mark cancelled the run, without anything sent to
    /// a device.
    func apply(to run: inout RunRecord, startActions: [RunAction], now: Date) -> [RunAction] {
        guard let more = cancel(&run, since: min(run.state.trigger.timestamp, now), now: now) else { return startActions }
        return (startActions + more).filter { !$0.isSend }
    }

    /// Replays on an open `run` the pending marks of its subscriber later than its trigger, as
    /// the trigger stage will when it handles their events. Returns the actions of the cancel
    /// (its `bk.cancel` pushes among them), or nil when no mark cancels the run (left as it was).
    func cancelOpen(_ run: inout RunRecord, now: Date) -> [RunAction]? {
        cancel(&run, since: run.state.trigger.timestamp, now: now)
    }

    /// Feeds `run` the marks of its subscriber that its rules name, later than `since`
    /// (compared in the milliseconds events carry, so a cancel stamped the same instant as the
    /// trigger is taken as earlier, as a batch that lists it first means), oldest first, until
    /// one cancels it. Returns the actions, or nil (and `run` untouched) when none cancels it.
    private func cancel(_ run: inout RunRecord, since: Date, now: Date) -> [RunAction]? {
        let since = Self.milliseconds(since)
        let candidates = (marks[run.tenantId + "\u{0}" + (run.subscriberId ?? "")] ?? [])
            .filter { Self.milliseconds($0.at) > since && run.cancelEvents.contains($0.event) }
            .sorted { $0.at < $1.at }
        guard !candidates.isEmpty else { return nil }
        var state = run.state
        var actions: [RunAction] = []
        for mark in candidates where state.status != .cancelled {
            actions += state.handle(.event(mark.asEvent), now: now)
        }
        guard state.status == .cancelled else { return nil }
        run.state = state
        return actions
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
