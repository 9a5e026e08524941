import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// The thin runner: turns a run's actions into rows committed with its new state.
/// Timers become outbox rows due at their time; sends become immediate outbox messages to
/// the stage that performs them, or, when the caller asks, messages it sends itself
/// (``Pending/inline``): a timer's alerts inside its transaction, a new run's first sends
/// right after the commit (``enqueueAfterCommit(_:tx:now:)``).
package struct RunActions {
    let topology: Topology
    let lanes: LaneSettings
    /// Immediate messages one flush sends to the same pipeline queue go this many to an outbox
    /// row and broker message (``Outbox/packed(_:packing:size:)``).
    var packSize = 100

    /// Outbox rows collected from several runs, written with one statement by ``flush(_:tx:now:)``.
    package struct Pending {
        var messages: [OutboxMessage] = []
        var runIds: [UUID?] = []
        var plans: [SentPlan] = []
        /// Sends kept for the stage to make itself (alerts collected with `sendAlertsInline`,
        /// plans with `sendPlansInline`) instead of handing them to `fallback-check` or
        /// `plan-dispatch`.
        var inline: [PipelineMessage] = []

        package init() {}
    }

    /// Persists `actions` of `run` (already updated or inserted) inside `tx`.
    func apply(_ actions: [RunAction], run: RunRecord, tx: any StoreTransaction, now: Date) throws -> [Outbox.Row] {
        var pending = Pending()
        try collect(actions, run: run, tx: tx, now: now, into: &pending)
        return try flush(pending, tx: tx, now: now)
    }

    /// Writes collected plans and outbox rows (after the runs they belong to).
    package func flush(_ pending: Pending, tx: any StoreTransaction, now: Date) throws -> [Outbox.Row] {
        try tx.recordPlans(pending.plans, at: now)
        // Timers (tagged with their run, so a cancel can delete them) stay one a row.
        let immediate = pending.messages.indices.filter { pending.runIds[$0] == nil }.map { pending.messages[$0] }
        let timers = pending.messages.indices.filter { pending.runIds[$0] != nil }
        let packed = Outbox.packed(immediate, packing: topology.packableQueues, size: packSize)
        return try tx.enqueue(packed + timers.map { pending.messages[$0] },
                              runIds: Array(repeating: nil, count: packed.count) + timers.map { pending.runIds[$0] }, now: now)
    }

    /// Writes `sends` as immediate outbox rows (packed per queue), each carrying its messages
    /// for the worker to send right after the commit (``SendProcessor/sendAfterCommit(_:)``).
    /// Until then, and if that fails, they are ordinary messages: the relay's lease keeps them.
    func enqueueAfterCommit(_ sends: [PipelineMessage], tx: any StoreTransaction, now: Date) throws -> [Outbox.Row] {
        guard !sends.isEmpty else { return [] }
        var queues: [String] = []
        var byQueue: [String: [PipelineMessage]] = [:]
        for message in sends {
            let queue = topology.name(message.queue)
            if byQueue[queue] == nil { queues.append(queue) }
            byQueue[queue, default: []].append(message)
        }
        var messages: [OutboxMessage] = []
        var groups: [[PipelineMessage]] = []
        for queue in queues {
            let group = byQueue[queue] ?? []
            for start in stride(from: 0, to: group.count, by: max(packSize, 1)) {
                let chunk = Array(group[start..<min(start + max(packSize, 1), group.count)])
                let bodies = try chunk.map { try $0.encoded() }
                messages.append(chunk.count == 1 ? OutboxMessage(routingKey: queue, messageId: chunk[0].messageId, body: bodies[0])
                                                 : OutboxMessage(routingKey: queue, messageId: "pack:" + chunk[0].messageId,
                                                                 body: PipelineMessage.pack(bodies), items: chunk.count))
                groups.append(chunk)
            }
        }
        var rows = try tx.enqueue(messages, runIds: Array(repeating: nil, count: messages.count), now: now)
        for index in rows.indices { rows[index].sendAfterCommit = groups[index] }
        return rows
    }

    /// Turns `actions` into pending outbox rows (deleting timers and recording plans at once).
    ///
    /// With `sendAlertsInline`, alerts (fallbacks, push steps) go to `pending.inline` for the
    /// caller to send in the same transaction: a stage that decides a fallback then sends it
    /// without another queue hop. With `sendPlansInline`, so do plans that would take the
    /// interactive `plan-dispatch` queue (a bulk run's plan that is not urgent keeps its lane).
    package func collect(_ actions: [RunAction], run: RunRecord, tx: any StoreTransaction, now: Date, into pending: inout Pending,
                 sendAlertsInline: Bool = false, sendPlansInline: Bool = false) throws {
        var immediate: [OutboxMessage] = []
        var timers: [OutboxMessage] = []
        let subscriberId = run.subscriberId ?? ""
        for action in actions {
            let message: PipelineMessage
            switch action {
            case .scheduleTimer(let timer):
                // A window whose decision ends the run can be settled by the scheduler alone,
                // or decided by `fallback-check` without loading the run.
                let settleable = run.state.settleableWindow.flatMap { localId in
                    run.subscriberId.map { PipelineMessage.Window(subscriberId: $0, localId: localId) }
                }
                let pipeline = PipelineMessage.timer(tenantId: run.tenantId, runId: run.id, timer: timer, window: settleable)
                let window = settleable.map {
                    OutboxMessage.Window(tenantId: run.tenantId, subscriberId: $0.subscriberId, runId: run.id, localId: $0.localId)
                }
                timers.append(OutboxMessage(routingKey: topology.name(lanes.queue(of: pipeline, bulk: run.bulk, now: now)), messageId: pipeline.messageId,
                                            body: try pipeline.encoded(), availableAt: timer.at, window: window))
                continue
            case .cancelTimers:
                try tx.deleteTimers(runId: run.id)
                timers.removeAll()
                // Timers of this run still waiting in the batch are dropped too.
                let keep = pending.runIds.indices.filter { pending.runIds[$0] != run.id }
                pending.messages = keep.map { pending.messages[$0] }
                pending.runIds = keep.map { pending.runIds[$0] }
                continue
            case .statusChanged:
                continue
            case .sendLocalPlan(let delivery):
                pending.plans.append(SentPlan(tenantId: run.tenantId, subscriberId: run.subscriberId, delivery: delivery))
                message = .sendPlan(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, delivery: delivery)
                if sendPlansInline && lanes.queue(of: message, bulk: run.bulk, now: now) == .planDispatch { pending.inline.append(message); continue }
            case .sendPush(let delivery):
                message = .sendAlert(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, fallback: false, delivery: delivery)
                if sendAlertsInline { pending.inline.append(message); continue }
            case .sendFallback(let delivery):
                message = .sendAlert(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, fallback: true, delivery: delivery)
                if sendAlertsInline { pending.inline.append(message); continue }
            case .sendCancel(let delivery):
                message = .sendCancel(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, delivery: delivery)
            }
            immediate.append(OutboxMessage(routingKey: topology.name(lanes.queue(of: message, bulk: run.bulk, now: now)), messageId: message.messageId, body: try message.encoded()))
        }
        pending.messages += immediate
        pending.runIds += Array(repeating: nil, count: immediate.count)
        pending.messages += timers
        pending.runIds += Array(repeating: run.id, count: timers.count)
    }
}
