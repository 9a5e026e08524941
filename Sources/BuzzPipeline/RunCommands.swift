import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// Run operations the API performs directly: trigger a workflow (live or dry) and cancel a
/// run. Each is one transaction with its outbox rows, relayed after commit.
public struct RunCommands: Sendable {
    public let context: PipelineContext
    public let broker: any Broker
    public let outbox: any OutboxStore
    /// Cancelling events' marks, recorded as the API accepts them.
    public let acceptedCancels = AcceptedCancels()
    /// Devices' words of requests that arrive together, recorded together.
    public let deviceWords = DeviceWordBatcher()

    public init(context: PipelineContext, broker: any Broker, outbox: any OutboxStore) {
        self.context = context
        self.broker = broker
        self.outbox = outbox
    }

    /// Starts a run of the current version of `workflowKey`. Returns nil when the workflow
    /// does not exist.
    public func trigger(tenantId: String, workflowKey: String, subscriberId: String?, properties: [String: JSONValue],
                        dryRun: Bool) throws -> RunRecord? {
        let now = context.clock.now
        let result = try context.store.transaction { tx -> (RunRecord, [Outbox.Row])? in
            guard let workflow = try tx.currentWorkflow(tenantId: tenantId, key: workflowKey) else { return nil }
            let trigger = BuzzEvent(event: workflow.definition.triggerEvent, subscriberId: subscriberId ?? "", properties: properties, timestamp: now)
            let (run, actions) = try EventProcessor.newRun(workflow: workflow, trigger: trigger, subscriberId: subscriberId, dryRun: dryRun,
                                                           lookups: BatchLookups(tx), now: now)
            try tx.insertRun(run)
            return (run, try context.actions.apply(actions, run: run, tx: tx, now: now))
        }
        guard let (run, rows) = result else { return nil }
        Outbox.relay(rows, broker: broker, outbox: outbox, log: context.log)
        context.metrics.increment("buzzkit_runs_started_total", help: "Workflow runs started")
        return run
    }

    /// A run of the tenant as its summary shows it (nil for another tenant's run): with the
    /// plan deliveries and acknowledgments recorded since its state was last written folded
    /// in (``PendingFacts``; nothing is written, nothing locked).
    public func summary(tenantId: String, runId: UUID) throws -> RunRecord? {
        try context.store.transaction { tx in
            try tx.run(runId, tenantId: tenantId).map { try PendingFacts.folded($0, tx: tx) }
        }
    }

    /// The runs' summaries as the API shows them: each step with the pushes sent for it, and
    /// the run's first open (two statements for all of them).
    public func summaries(tenantId: String, of runs: [RunRecord]) throws -> [RunSummary] {
        let activity = try context.store.transaction { try $0.activity(tenantId: tenantId, runIds: runs.map(\.id)) }
        return runs.map { $0.state.summary.attaching(activity[$0.id] ?? RunActivity()) }
    }

    /// A page of the tenant's runs, newest first, each as its summary shows it (see
    /// ``summary(tenantId:runId:)``).
    public func runs(tenantId: String, _ query: RunQuery) throws -> [RunQuery.Found] {
        try context.store.transaction { tx in
            let found = try tx.runs(tenantId: tenantId, query)
            // The whole page's plan deliveries and acknowledgments in one fold (a few statements).
            var runs = Dictionary(found.map { ($0.run.id, $0.run) }, uniquingKeysWith: { a, _ in a })
            _ = try PendingFacts.fold(into: &runs, tx: tx)
            return found.map { RunQuery.Found(run: runs[$0.run.id] ?? $0.run, cursor: $0.cursor) }
        }
    }

    /// Cancels a run of the tenant (`bk.cancel` goes to devices that got a plan). Returns the
    /// run after the cancel, or nil when the tenant has no such run.
    public func cancel(tenantId: String, runId: UUID) throws -> RunRecord? {
        let now = context.clock.now
        let result = try context.store.transaction { tx -> (RunRecord, [Outbox.Row])? in
            guard let locked = try tx.lockRun(runId, tenantId: tenantId) else { return nil }
            var run = try PendingFacts.folded(locked, tx: tx)
            let before = locked.state
            let actions = run.state.handle(.cancel, now: now)
            guard run.state != before else { return (run, []) }
            try tx.updateRun(run)
            if run.state.status == .cancelled && before.status != .cancelled {
                context.metrics.increment("buzzkit_cancels_total", ["by": "api"], help: "Runs cancelled")
            }
            return (run, try context.actions.apply(actions, run: run, tx: tx, now: now))
        }
        guard let (run, rows) = result else { return nil }
        Outbox.relay(rows, broker: broker, outbox: outbox, log: context.log)
        return run
    }
}
