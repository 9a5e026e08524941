import BuzzEngine
import BuzzKitWire
import Foundation
import PushDelivery

/// The send half of `plan-dispatch` (plans, cancels) and `fallback-check` (alerts).
///
/// Three steps per batch: claim every (idempotency key, device) pair in one transaction,
/// send what was claimed through the push provider (concurrently), then record the answers
/// and tell the runs how many devices got their plan. A pair already sent is never sent
/// again, so a redelivered message sends nothing twice; a pair left `pending` by a crash
/// is sent again, and APNs collapses the repeat by its collapse id.
struct SendProcessor {
    let context: PipelineContext

    struct Target {
        var message: PipelineMessage
        var device: DeviceRecord
        var key: String
        var claim: DeliveryClaim
    }

    /// Returns the outbox rows to relay (from runs told about plan deliveries).
    func process(_ messages: [PipelineMessage]) throws -> [Outbox.Row] {
        let now = context.clock.now()
        let targets = try context.store.transaction { tx in try claim(messages, tx: tx, now: now) }
        let toSend = targets.filter { $0.claim == .send }
        let results = context.push.send(toSend.map(notification))
        return try context.store.transaction { tx -> [Outbox.Row] in
            var delivered: [String: Int] = [:]
            for target in targets where target.claim == .alreadyDone { delivered[target.key, default: 0] += 1 }
            for (target, result) in zip(toSend, results) {
                try record(result, for: target, tx: tx, now: now)
                if result.isDelivered { delivered[target.key, default: 0] += 1 }
            }
            return try reportPlans(messages, delivered: delivered, tx: tx, now: now)
        }
    }

    private func claim(_ messages: [PipelineMessage], tx: any StoreTransaction, now: Date) throws -> [Target] {
        var targets: [Target] = []
        for message in messages {
            let devices: [DeviceRecord]
            let key: String
            let kind: String
            var messageId: String?
            switch message {
            case .sendPlan(let tenantId, _, let subscriberId, let delivery):
                devices = try tx.activeDevices(tenantId: tenantId, subscriberId: subscriberId)
                (key, kind, messageId) = (delivery.localId, "plan", delivery.messageId)
            case .sendAlert(let tenantId, _, let subscriberId, let fallback, let delivery):
                devices = try tx.activeDevices(tenantId: tenantId, subscriberId: subscriberId)
                (key, kind, messageId) = (delivery.idempotencyKey, fallback ? "fallback" : "push", delivery.messageId)
            case .sendCancel(_, let runId, _, _):
                devices = try tx.planRecipients(runId: runId)
                (key, kind) = ("\(runId.uuidString.lowercased())/cancel", "cancel")
            case .timer:
                continue
            }
            for device in devices where device.platform == "ios" {
                let claim = try tx.claimDelivery(tenantId: message.tenantId, runId: message.runId, idempotencyKey: key,
                                                 deviceId: device.id, kind: kind, messageId: messageId, at: now)
                targets.append(Target(message: message, device: device, key: key, claim: claim))
            }
        }
        return targets
    }

    private func notification(_ target: Target) -> PushNotification {
        let environment = PushNotification.Environment(rawValue: target.device.environment) ?? .production
        switch target.message {
        case .sendPlan(_, _, _, let delivery):
            return .background(deviceToken: target.device.token, topic: target.device.topic, environment: environment,
                               expiration: delivery.headers.expiration.map { Date(timeIntervalSince1970: Double($0)) } ?? delivery.moment,
                               payload: Data(delivery.body.utf8))
        case .sendCancel(_, _, _, let delivery):
            return .background(deviceToken: target.device.token, topic: target.device.topic, environment: environment,
                               expiration: nil, payload: Data(delivery.body.utf8))
        case .sendAlert(_, _, _, _, let delivery):
            return .alert(deviceToken: target.device.token, topic: target.device.topic, environment: environment,
                          collapseId: delivery.headers.collapseId ?? delivery.idempotencyKey, payload: Data(delivery.body.utf8))
        case .timer:
            preconditionFailure("timers are not sent")
        }
    }

    private func record(_ result: PushResult, for target: Target, tx: any StoreTransaction, now: Date) throws {
        let status: String
        switch result.outcome {
        case .delivered: status = "sent"
        case .deviceUnregistered(let reason, let since):
            status = "unregistered"
            try tx.deactivateDevice(target.device.id, reason: reason, at: since ?? now)
        case .rejected: status = "rejected"
        case .failed: status = "failed"
        }
        try tx.finishDelivery(idempotencyKey: target.key, deviceId: target.device.id,
                              outcome: DeliveryOutcome(status: status, apnsId: result.apnsId?.uuidString, httpStatus: result.status,
                                                       reason: result.reason, attempts: result.attempts), at: now)
        let kind: String
        switch target.message {
        case .sendPlan: kind = "plan"
        case .sendCancel: kind = "cancel"
        case .sendAlert(_, _, _, let fallback, _): kind = fallback ? "fallback" : "push"
        case .timer: kind = "timer"
        }
        context.metrics.increment("buzzkit_pushes_total", ["kind": kind, "outcome": result.outcomeName], help: "Pushes sent to APNs by kind and outcome")
    }

    /// Tells each run how many devices received its plan.
    private func reportPlans(_ messages: [PipelineMessage], delivered: [String: Int], tx: any StoreTransaction, now: Date) throws -> [Outbox.Row] {
        let plans = messages.compactMap { message -> (UUID, LocalPlanDelivery)? in
            if case .sendPlan(_, let runId, _, let delivery) = message { return (runId, delivery) }
            return nil
        }
        guard !plans.isEmpty else { return [] }
        var runs: [UUID: RunRecord] = [:]
        for run in try tx.lockRuns(plans.map(\.0)) { runs[run.id] = run }
        var rows: [Outbox.Row] = []
        for (runId, delivery) in plans {
            guard var run = runs[runId] else { continue }
            let count = delivered[delivery.localId] ?? 0
            let before = run.state
            let actions = run.state.handle(.planDelivered(localId: delivery.localId, deviceCount: count), now: now)
            if count > 0 { context.metrics.increment("buzzkit_plans_sent_total", help: "Local plans handed to at least one device") }
            guard run.state != before || !actions.isEmpty else { continue }
            try tx.updateRun(run)
            runs[runId] = run
            rows += try context.actions.apply(actions, run: run, tx: tx, now: now)
        }
        return rows
    }
}
