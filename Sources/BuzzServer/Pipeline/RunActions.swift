import BuzzEngine
import BuzzKitWire
import Foundation

/// The thin runner: turns a run's actions into rows committed with its new state.
/// Timers become outbox rows due at their time; sends become immediate outbox messages to
/// the stage that performs them. Nothing is sent from inside the transaction.
struct RunActions {
    let topology: Topology

    /// Persists `actions` of `run` (already updated or inserted) inside `tx`.
    func apply(_ actions: [RunAction], run: RunRecord, tx: any StoreTransaction, now: Date) throws -> [Outbox.Row] {
        var immediate: [OutboxMessage] = []
        var timers: [OutboxMessage] = []
        let subscriberId = run.subscriberId ?? ""
        for action in actions {
            let message: PipelineMessage
            switch action {
            case .scheduleTimer(let timer):
                let pipeline = PipelineMessage.timer(tenantId: run.tenantId, runId: run.id, timer: timer)
                timers.append(OutboxMessage(routingKey: topology.name(pipeline.queue), messageId: pipeline.messageId,
                                            body: try pipeline.encoded(), availableAt: timer.at))
                continue
            case .cancelTimers:
                try tx.deleteTimers(runId: run.id)
                timers.removeAll()
                continue
            case .statusChanged:
                continue
            case .sendLocalPlan(let delivery):
                try tx.recordPlan(tenantId: run.tenantId, subscriberId: run.subscriberId, delivery: delivery, at: now)
                message = .sendPlan(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, delivery: delivery)
            case .sendPush(let delivery):
                message = .sendAlert(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, fallback: false, delivery: delivery)
            case .sendFallback(let delivery):
                message = .sendAlert(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, fallback: true, delivery: delivery)
            case .sendCancel(let delivery):
                message = .sendCancel(tenantId: run.tenantId, runId: run.id, subscriberId: subscriberId, delivery: delivery)
            }
            immediate.append(OutboxMessage(routingKey: topology.name(message.queue), messageId: message.messageId, body: try message.encoded()))
        }
        var rows = try tx.enqueue(immediate, runId: nil, now: now)
        rows += try tx.enqueue(timers, runId: run.id, now: now)
        return rows
    }
}
