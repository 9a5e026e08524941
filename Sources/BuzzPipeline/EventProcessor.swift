import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// The `trigger` and `ack-ingest` stages: events start runs, cancel runs, record which devices
/// hold which plans (`$local.scheduled`, `$local.released`) and record opens. A new run's
/// first sends (its interactive plan, its alerts) are made by the same worker right after the
/// transaction that starts the run commits (``LaneSettings/triggerSends``).
struct EventProcessor {
    /// An event with its tenant (from the routing key) and its deduplication key (the
    /// client's event id, else the message id).
    struct Item {
        var tenantId: String
        var event: BuzzEvent
        var dedupeKey: String?
        /// The lane it came in on: a bulk event's runs are bulk runs.
        var lane: Topology.Lane = .interactive
    }

    let context: PipelineContext

    /// Processes `items` in one transaction; returns the outbox rows to relay after commit.
    func process(_ items: [Item], tx: any StoreTransaction) throws -> [Outbox.Row] {
        let now = context.clock.now
        let lookups = BatchLookups(tx)
        try CancelMarks.holdSubscribers(of: items.filter { !Self.isDeviceWord($0.event) && !Self.isTracking($0.event) }, lookups: lookups, tx: tx)
        // One statement per tenant records the batch's event ids and tells which are new.
        var fresh: [String: Set<String>] = [:]
        for (tenantId, group) in Dictionary(grouping: items, by: \.tenantId) {
            guard try lookups.tenant(tenantId) != nil else {
                throw ServerError.input("unknown tenant \"\(tenantId)\" in the routing key")
            }
            // Acknowledgments and releases are idempotent in their own table (each device's latest
            // time of each kind): no event id to keep.
            let ids = group.filter { !Self.isDeviceWord($0.event) }.compactMap(\.dedupeKey)
            fresh[tenantId] = try tx.markEventsProcessed(tenantId: tenantId, eventIds: ids, at: now)
        }
        var seen: Set<String> = []
        var work: [Item] = []
        for item in items {
            if Self.isDeviceWord(item.event) { work.append(item); continue }
            if let key = item.dedupeKey, !(fresh[item.tenantId]?.contains(key) ?? false) || !seen.insert(item.tenantId + "\u{0}" + key).inserted {
                context.metrics.increment("buzzkit_events_duplicate_total", help: "Events skipped because their id was processed before")
                continue
            }
            work.append(item)
        }
        // Lock every existing run the batch touches in one statement, in id order, so
        // concurrent batches never deadlock on each other's runs.
        var touched: Set<UUID> = []
        for item in work {
            switch item.event.event {
            case BuzzEvent.localScheduled, BuzzEvent.localReleased, BuzzEvent.pushOpened, BuzzEvent.pushAction, BuzzEvent.localSnoozed:
                continue
            default:
                if try lookups.cancels(tenantId: item.tenantId, event: item.event.event) {
                    touched.formUnion(try tx.openRuns(tenantId: item.tenantId, subscriberId: item.event.subscriberId, cancelEvent: item.event.event))
                }
            }
        }
        // Events that may start runs need their subscribers: one query per tenant.
        let starting = work.filter { !Self.isDeviceWord($0.event) && !Self.isTracking($0.event) }
        for (tenantId, group) in Dictionary(grouping: starting, by: \.tenantId) {
            try lookups.preloadSubscribers(tenantId: tenantId, ids: group.map(\.event.subscriberId))
        }
        let marks = try CancelMarks.exchange(starting, lookups: lookups, tx: tx, now: now)
        // Acknowledgments and releases: recorded per device in one statement per tenant. The
        // runs are not locked or rewritten: they learn it when next handled (``PendingFacts``).
        for (tenantId, group) in Dictionary(grouping: work.filter { Self.isDeviceWord($0.event) }, by: \.tenantId) {
            let counts = try tx.recordAcknowledgments(tenantId: tenantId, try group.map { try Self.deviceAcknowledgment($0.event) }, at: now)
            Self.countDeviceWords(counts, metrics: context.metrics)
        }
        var batch = Batch()
        // Runs an event may cancel: locked, with the plan deliveries and acknowledgments recorded
        // since they were last written folded in, so a cancelled run's summary keeps them.
        var locked: [UUID: RunRecord] = [:]
        for run in try tx.lockRuns(Array(touched)) { locked[run.id] = run }
        let folded = try PendingFacts.fold(into: &locked, tx: tx)
        for id in locked.keys.sortedByBytes() { batch.add(locked[id]!) }
        for (id, actions) in folded {
            batch.store(locked[id]!)
            try context.actions.collect(actions, run: locked[id]!, tx: tx, now: now, into: &batch.pending)
        }
        for item in work {
            switch item.event.event {
            case BuzzEvent.localScheduled, BuzzEvent.localReleased:
                continue  // recorded above
            case BuzzEvent.pushOpened:
                if case .string(let messageId)? = item.event.properties["messageId"] {
                    try tx.recordOpen(tenantId: item.tenantId, subscriberId: item.event.subscriberId, messageId: messageId, at: now)
                    context.metrics.increment("buzzkit_opens_total", help: "Notification opens ($push.opened)")
                }
            case BuzzEvent.pushAction:
                if case .string(let messageId)? = item.event.properties["messageId"], case .string(let actionId)? = item.event.properties["actionId"] {
                    try tx.recordAction(tenantId: item.tenantId, subscriberId: item.event.subscriberId, messageId: messageId, actionId: actionId,
                                        at: item.event.timestamp)
                    context.metrics.increment("buzzkit_actions_total", help: "Buttons chosen on notifications ($push.action)")
                }
            case BuzzEvent.localSnoozed:
                context.metrics.increment("buzzkit_snoozes_total", help: "Notifications snoozed on a device ($local.snoozed)")
            default:
                try cancelRuns(item, batch: &batch, tx: tx, now: now)
                try startRuns(item, batch: &batch, tx: tx, lookups: lookups, marks: marks, now: now)
            }
        }
        // Everything the batch changed, in a few statements: new runs, changed runs, then the
        // plans and outbox rows that belong to them.
        try tx.insertRuns(batch.created.compactMap { batch.runs[$0] })
        try tx.updateRuns(batch.changed.sortedByBytes().compactMap { batch.runs[$0] })
        let rows = try context.actions.flush(batch.pending, tx: tx, now: now)
        // The new runs' first sends, for this worker to make right after the commit rather
        // than `plan-dispatch` and `fallback-check` (a run a later event of the batch
        // cancelled sends nothing).
        let sends = batch.pending.inline.filter { batch.runs[$0.runId]?.state.status != .cancelled }
        return rows + (try context.actions.enqueueAfterCommit(sends, tx: tx, now: now))
    }

    /// What one batch has touched so far.
    struct Batch {
        var runs: [UUID: RunRecord] = [:]
        /// Runs started by this batch (inserted at the end, in this order).
        var created: [UUID] = []
        /// Existing runs this batch changed.
        var changed: Set<UUID> = []
        var pending = RunActions.Pending()

        /// The batch's runs by tenant and subscriber (a cancelling event looks only at its
        /// subscriber's runs, not at the whole batch).
        private var bySubscriber: [String: [UUID]] = [:]

        mutating func store(_ run: RunRecord) {
            add(run)
            if !createdSet.contains(run.id) { changed.insert(run.id) }
        }

        /// Adds a run the batch locked or started.
        mutating func add(_ run: RunRecord, created isNew: Bool = false) {
            if runs.updateValue(run, forKey: run.id) == nil { bySubscriber[run.tenantId + "\u{0}" + (run.subscriberId ?? ""), default: []].append(run.id) }
            if isNew { created.append(run.id); createdSet.insert(run.id) }
        }

        private var createdSet: Set<UUID> = []

        /// The ids of the subscriber's runs in the batch, in byte order.
        func runs(of tenantId: String, _ subscriberId: String) -> [UUID] {
            (bySubscriber[tenantId + "\u{0}" + subscriberId] ?? []).sortedByBytes()
        }
    }

    /// The run id of a `$local.scheduled` or `$local.released` (its `localId` is `<runId>/<stepName>`).
    static func runId(ofAcknowledgment event: BuzzEvent) -> UUID? {
        guard case .string(let localId)? = event.properties["localId"], let slash = localId.firstIndex(of: "/") else { return nil }
        return UUID(uuidString: String(localId[..<slash]))
    }

    /// Counts what ``StoreTransaction/recordAcknowledgments(tenantId:_:at:)`` recorded.
    static func countDeviceWords(_ counts: AcknowledgmentOutcome, metrics: Metrics) {
        if counts.acknowledged > 0 {
            metrics.increment("buzzkit_acknowledgments_total", by: Double(counts.acknowledged),
                              help: "Plans acknowledged by a device ($local.scheduled), repeats not counted")
        }
        if counts.released > 0 {
            metrics.increment("buzzkit_releases_total", by: Double(counts.released),
                              help: "Plans a device let go of after acknowledging them ($local.released), repeats not counted")
        }
        if !counts.late.isEmpty {
            metrics.increment("buzzkit_acknowledgments_late_total", by: Double(counts.late.count),
                              help: "Acknowledgments that came after their window's fallback was decided (not counted; the device is told)")
        }
        if !counts.cancelled.isEmpty {
            metrics.increment("buzzkit_acknowledgments_cancelled_total", by: Double(counts.cancelled.count),
                              help: "Acknowledgments of plans whose run was cancelled (not counted; the device is told to drop the plan)")
        }
    }

    /// Whether the event only records what a person did with a notification (`$push.opened`,
    /// `$push.action`, `$local.snoozed`): it starts and cancels no run.
    static func isTracking(_ event: BuzzEvent) -> Bool {
        event.event == BuzzEvent.pushOpened || event.event == BuzzEvent.pushAction || event.event == BuzzEvent.localSnoozed
    }

    /// Whether the event is a device's word on a plan it holds: `$local.scheduled` or `$local.released`.
    static func isDeviceWord(_ event: BuzzEvent) -> Bool {
        event.event == BuzzEvent.localScheduled || event.event == BuzzEvent.localReleased
    }

    /// A `$local.scheduled` or `$local.released` as recorded: per device (`properties.device`,
    /// lowercased as device tokens are stored; empty when absent), at the event's timestamp.
    /// A `localId` that names no run is permanent (dead-lettered with the reason).
    static func deviceAcknowledgment(_ event: BuzzEvent) throws -> DeviceAcknowledgment {
        guard runId(ofAcknowledgment: event) != nil, case .string(let localId)? = event.properties["localId"] else {
            throw ServerError.input("\(event.event) needs properties.localId of the form <runId>/<stepName>")
        }
        return DeviceAcknowledgment(subscriberId: event.subscriberId, localId: localId,
                                    device: event.properties["device"]?.stringValue?.lowercased() ?? "",
                                    messageId: event.properties["messageId"]?.stringValue,
                                    kind: event.event == BuzzEvent.localScheduled ? .scheduled : .released, at: event.timestamp)
    }

    /// Starts a run of every current workflow triggered by the event. A run whose cancelling
    /// event was handled first, though it happened after the trigger, starts cancelled and
    /// sends nothing (``CancelMarks``).
    func startRuns(_ item: Item, batch: inout Batch, tx: any StoreTransaction, lookups: BatchLookups, marks: CancelMarks, now: Date) throws {
        for workflow in try lookups.workflows(tenantId: item.tenantId, triggeredBy: item.event.event) {
            let (created, started) = try Self.newRun(workflow: workflow, trigger: item.event, subscriberId: item.event.subscriberId,
                                                     dryRun: false, lookups: lookups, now: now)
            var run = created
            run.bulk = item.lane == .bulk
            let actions = marks.apply(to: &run, startActions: started, now: now)
            if run.state.status == .cancelled {
                context.metrics.increment("buzzkit_cancels_total", ["by": "earlier_event"], help: "Runs cancelled")
            }
            batch.add(run, created: true)  // a later event of this batch may cancel it
            try context.actions.collect(actions, run: run, tx: tx, now: now, into: &batch.pending,
                                        sendAlertsInline: context.lanes.triggerSends, sendPlansInline: context.lanes.triggerSends)
            context.metrics.increment("buzzkit_runs_started_total", help: "Workflow runs started")
        }
    }

    /// Creates a run and feeds it `.start`. Its id is time-ordered (``RandomIdentifier/timeOrdered(at:)``).
    static func newRun(workflow: WorkflowRecord, trigger: BuzzEvent, subscriberId: String?, dryRun: Bool,
                       lookups: BatchLookups, now: Date, id: UUID? = nil) throws -> (RunRecord, [RunAction]) {
        let id = id ?? RandomIdentifier.timeOrdered(at: now)
        let tenant = try lookups.tenant(workflow.tenantId)
        let subscriber = try subscriberId.flatMap { try lookups.subscriber(tenantId: workflow.tenantId, id: $0) }
        let runContext = RunContext(runId: id.lowercasedText, dryRun: dryRun, hasSubscriber: subscriber != nil,
                                    subscriberTimeZone: subscriber?.timezone, tenantDefaultTimeZone: tenant?.defaultTimezone,
                                    quietHours: tenant?.quietHours)
        var state = RunState(workflow: workflow.definition, trigger: trigger, context: runContext)
        let actions = state.handle(.start, now: now)
        let run = RunRecord(id: id, tenantId: workflow.tenantId, workflowKey: workflow.key, workflowVersion: workflow.version,
                            subscriberId: subscriberId, dryRun: dryRun, state: state)
        return (run, actions)
    }

    /// Feeds the event to the subscriber's open runs (already locked) whose `cancelOn` names it.
    func cancelRuns(_ item: Item, batch: inout Batch, tx: any StoreTransaction, now: Date) throws {
        for id in batch.runs(of: item.tenantId, item.event.subscriberId) {
            guard var run = batch.runs[id], run.tenantId == item.tenantId, run.subscriberId == item.event.subscriberId,
                  run.cancelEvents.contains(item.event.event) else { continue }
            let before = run.state
            let actions = run.state.handle(.event(item.event), now: now)
            guard run.state != before else { continue }
            batch.store(run)
            try context.actions.collect(actions, run: run, tx: tx, now: now, into: &batch.pending)
            if before.status != .cancelled && run.state.status == .cancelled {
                context.metrics.increment("buzzkit_cancels_total", ["by": "event"], help: "Runs cancelled")
            }
        }
    }
}
