import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

extension RunCommands {
    /// Erases a subscriber (`DELETE /v1/subscribers/{id}`), in one transaction: its open runs
    /// are cancelled, and each `bk.cancel` goes to the devices that were sent the run's plan;
    /// then everything kept of the subscriber is deleted, its runs included (their trigger
    /// properties and rendered messages are its data), and a tombstone refuses its late device
    /// traffic (``Store`` `eraseSubscriber`).
    ///
    /// The cancels name their devices in the message itself: the rows they were read from are
    /// gone when the message is sent. Once this returns, nothing else is sent to those devices
    /// for the subscriber: every later send looks its devices up and finds none, whatever was
    /// already waiting in a queue. (A batch already handing pushes to APNs as this commits may
    /// still finish sending them.) Erasing a subscriber that does not exist does nothing.
    public func erase(tenantId: String, subscriberId: String) throws {
        let now = context.clock.now
        let rows = try context.store.transaction { tx -> [Outbox.Row] in
            var locked: [UUID: RunRecord] = [:]
            for run in try tx.lockRuns(try tx.openRuns(tenantId: tenantId, subscriberId: subscriberId)) where run.tenantId == tenantId {
                locked[run.id] = run
            }
            let folded = try PendingFacts.fold(into: &locked, tx: tx)
            var pending = RunActions.Pending()
            var cancels: [OutboxMessage] = []
            var changed: [RunRecord] = []
            for id in locked.keys.sortedByBytes() {
                var run = locked[id]!
                let actions = (folded[id] ?? []) + run.state.handle(.cancel, now: now)
                changed.append(run)
                try context.actions.collect(actions.filter { !$0.isCancelPush }, run: run, tx: tx, now: now, into: &pending)
                for case .sendCancel(let delivery) in actions {
                    let recipients = try tx.planRecipients(runId: run.id).map(CancelRecipient.init)
                    let message = PipelineMessage.sendCancel(tenantId: tenantId, runId: run.id, subscriberId: subscriberId, delivery: delivery,
                                                             recipients: recipients)
                    cancels.append(OutboxMessage(routingKey: context.topology.name(message.queue), messageId: message.messageId, body: try message.encoded()))
                }
                context.metrics.increment("buzzkit_cancels_total", ["by": "erasure"], help: "Runs cancelled")
            }
            try tx.updateRuns(changed)
            try tx.eraseSubscriber(tenantId: tenantId, subscriberId: subscriberId, at: now)
            pending.messages += cancels
            pending.runIds += Array(repeating: nil, count: cancels.count)
            return try context.actions.flush(pending, tx: tx, now: now)
        }
        Outbox.relay(rows, broker: broker, outbox: outbox, log: context.log)
        context.metrics.increment("buzzkit_subscribers_erased_total", help: "Subscribers erased (DELETE /v1/subscribers/{id})")
    }
}

private extension RunAction {
    var isCancelPush: Bool {
        if case .sendCancel = self { return true }
        return false
    }
}
