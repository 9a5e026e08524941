import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation
import PushDelivery

/// The send half of `plan-dispatch` (plans, cancels) and `fallback-check` (alerts).
///
/// One transaction per batch: every (idempotency key, device) pair is claimed with a row
/// lock (in key order, so batches never deadlock), the claimed pushes are sent through the
/// provider concurrently and their answers recorded; then it commits. (Runs learn how many
/// devices got their plan from these rows when they are next handled, see ``PendingFacts``.) A duplicate of a message waits on the row lock and then
/// finds the pair sent, so nothing is sent twice. If the worker dies mid-batch the claims
/// roll back and the redelivered message sends again (APNs collapses a repeated alert by its
/// collapse id).
///
/// Sends a stage makes itself skip the claim, and are sent first and recorded with their
/// answers in one insert: one write per push instead of an insert and an update.
/// - Alerts a timer decides (``TimerProcessor``): their runs are row-locked in the same
///   transaction, so a duplicate timer waits for the run and then finds the window decided.
/// - The first plans and alerts of the runs a trigger batch started (``EventProcessor``),
///   sent by the same worker right after that batch commits (``sendAfterCommit(_:)``). Their
///   runs are read `FOR SHARE` first, as here, so a cancel that came in between wins; their
///   outbox rows are deleted in the same transaction. Nothing else sends them unless that
///   transaction fails: then their rows are relayed to this stage after the lease.
struct SendProcessor {
    let context: PipelineContext

    struct Target {
        var message: PipelineMessage
        var device: DeviceRecord
        var key: String
        var claim: DeliveryClaim
        var request: DeliveryRequest
    }

    /// Sends `messages` in a transaction of their own.
    func process(_ messages: [PipelineMessage]) throws {
        let now = context.clock.now
        try context.store.transaction { tx in try send(messages, tx: tx, now: now) }
    }

    /// How ``send(_:tx:now:mode:)`` guards against a second send.
    enum Mode {
        /// Every (message, device) pair is claimed first (`plan-dispatch`, `fallback-check`).
        case claimed
        /// `tx` holds every message's run locked (a timer's alerts): sent, then recorded.
        case runsLocked
        /// Made by the worker that committed the runs (``sendAfterCommit(_:)``): a plan or
        /// alert of a run cancelled since is dropped; the rest sent, then recorded.
        case afterCommit
    }

    /// Sends and records `messages` inside `tx` (which commits them), guarded as `mode` says.
    ///
    /// A push past its lifetime (``SendProcessor/deadline(of:now:)``) is not sent but recorded
    /// `expired`. One that fails for a passing reason is recorded `failed` and sent again by a
    /// retry written to the outbox in the same transaction (``scheduleRetries(_:tx:now:)``), so
    /// it survives restarts and a decision never commits without its push or the retry.
    func send(_ messages: [PipelineMessage], tx: any StoreTransaction, now: Date, mode: Mode = .claimed) throws {
        let targets = try claim(messages, tx: tx, now: now, claiming: mode == .claimed, checkCancelled: mode != .runsLocked,
                                checkAlerts: mode != .runsLocked)
        var toSend: [Target] = [], lapsed: [Target] = []
        for target in targets where target.claim != .alreadyDone {
            if deadline(of: target, now: now) > now { toSend.append(target) } else { lapsed.append(target) }
        }
        let results = context.push.send(toSend.map(notification))
        var delivered: [String: Int] = [:]
        for target in targets where target.claim == .alreadyDone { delivered[target.key, default: 0] += 1 }
        var recorded: [(target: Target, outcome: DeliveryOutcome)] = []
        var failed: [(target: Target, retryAfter: TimeInterval?)] = []
        for (target, result) in zip(toSend, results) {
            var outcome = try record(result, for: target, tx: tx, now: now)
            if outcome.status == "failed" {
                if retryTime(for: target, retryAfter: result.retryAfter, now: now) != nil {
                    failed.append((target, result.retryAfter))
                } else {
                    outcome.status = "expired"
                }
            }
            recorded.append((target, outcome))
            if result.isDelivered { delivered[target.key, default: 0] += 1 }
        }
        for target in lapsed {
            context.metrics.increment("buzzkit_pushes_total", ["kind": target.request.kind, "outcome": "expired"], help: "Pushes sent to APNs by kind and outcome")
            recorded.append((target, DeliveryOutcome(status: "expired", reason: "its lifetime ended before APNs accepted it", attempts: 0)))
        }
        let answered = recorded.map { DeliveryResult($0.target.request, $0.outcome) }
        if mode != .claimed {
            try tx.recordDeliveries(answered, at: now)
        } else {
            try tx.finishDeliveries(answered, at: now)
        }
        try scheduleRetries(failed, tx: tx, now: now)
        // The runs learn how many devices got each plan at their next handling (PendingFacts):
        // this stage does not lock or rewrite them.
        for message in messages {
            if case .sendPlan(_, _, _, let delivery) = message, (delivered[delivery.localId] ?? 0) > 0 {
                context.metrics.increment("buzzkit_plans_sent_total", help: "Local plans handed to at least one device")
            }
        }
    }

    /// Makes the sends of `rows` that their worker keeps for itself (``Outbox/Row/sendAfterCommit``)
    /// in one transaction that also deletes those rows, and returns the rows left to relay:
    /// the others, or all of them if that transaction failed (then `plan-dispatch` and
    /// `fallback-check` make the sends, under their claims).
    func sendAfterCommit(_ rows: [Outbox.Row]) -> [Outbox.Row] {
        let own = rows.filter { !$0.sendAfterCommit.isEmpty }
        guard !own.isEmpty else { return rows }
        do {
            let now = context.clock.now
            try context.store.transaction { tx in
                // The rows stay locked while APNs answers (it may take longer than their relay
                // lease): the scheduler passes over them, so a slow APNs is not sent the same
                // alert again through the relay. A row the scheduler took already is its to send.
                let locked = try tx.lockOutboxRows(own.map(\.id))
                let mine = own.filter { locked.contains($0.id) }
                try send(mine.flatMap(\.sendAfterCommit), tx: tx, now: now, mode: .afterCommit)
                try tx.deleteOutboxRows(mine.map(\.id))
            }
            return rows.filter { $0.sendAfterCommit.isEmpty }
        } catch {
            context.log.warning("sending new runs' pushes after their commit failed; their queues send them after the relay lease",
                                ["messages": "\(own.reduce(0) { $0 + $1.sendAfterCommit.count })", "error": "\(error)"])
            return rows
        }
    }

    private func claim(_ messages: [PipelineMessage], tx: any StoreTransaction, now: Date, claiming: Bool, checkCancelled: Bool,
                       checkAlerts: Bool) throws -> [Target] {
        // Devices: one query per tenant for every subscriber of the batch; cancels go to plan recipients.
        var subscribersByTenant: [String: Set<String>] = [:]
        for message in messages {
            switch message {
            case .sendPlan(let tenantId, _, let subscriberId, _), .sendAlert(let tenantId, _, let subscriberId, _, _):
                subscribersByTenant[tenantId, default: []].insert(subscriberId)
            case .sendCancel, .timer:
                continue
            }
        }
        var devicesBy: [String: [DeviceRecord]] = [:]
        for (tenantId, subscribers) in subscribersByTenant {
            for (subscriberId, devices) in try tx.activeDevices(tenantId: tenantId, subscriberIds: Array(subscribers)) {
                devicesBy[tenantId + "\u{0}" + subscriberId] = devices
            }
        }
        // A plan held up (an outage, a slow batch) past its run's cancel is not sent: the cancel
        // found no device that had the plan, so a phone given it now would keep and show it.
        // After the commit of a trigger batch, its alerts too: a run cancelled since sends nothing.
        let checked = checkCancelled ? messages.compactMap { message -> UUID? in
            switch message {
            case .sendPlan: return message.runId
            case .sendAlert: return checkAlerts ? message.runId : nil
            case .sendCancel, .timer: return nil
            }
        } : []
        let cancelled = try tx.cancelledRuns(checked)
        var targets: [Target] = []
        var requests: [DeliveryRequest] = []
        var seen: Set<String> = []
        for message in messages {
            let devices: [DeviceRecord]
            let key: String
            let kind: String
            var messageId: String?
            switch message {
            case .sendPlan(let tenantId, let runId, let subscriberId, let delivery):
                guard !cancelled.contains(runId) else {
                    context.metrics.increment("buzzkit_plans_skipped_total", ["reason": "cancelled"],
                                              help: "Plans not sent: too_late (their moment was too near when their turn came; the fallback covers them) or cancelled (their run was cancelled first)")
                    continue
                }
                // Too late to be scheduled on a phone before its moment: the fallback covers it.
                guard delivery.moment.timeIntervalSince(now) >= context.lanes.planMinimumLeadSeconds else {
                    context.metrics.increment("buzzkit_plans_skipped_total", ["reason": "too_late"],
                                              help: "Plans not sent: too_late (their moment was too near when their turn came; the fallback covers them) or cancelled (their run was cancelled first)")
                    continue
                }
                devices = devicesBy[tenantId + "\u{0}" + subscriberId] ?? []
                (key, kind, messageId) = (delivery.localId, "plan", delivery.messageId)
            case .sendAlert(let tenantId, let runId, let subscriberId, let fallback, let delivery):
                guard !cancelled.contains(runId) else { continue }
                devices = devicesBy[tenantId + "\u{0}" + subscriberId] ?? []
                (key, kind, messageId) = (delivery.idempotencyKey, fallback ? "fallback" : "push", delivery.messageId)
            case .sendCancel(let tenantId, let runId, let subscriberId, _, let recipients):
                devices = try recipients.map { $0.map { $0.device(tenantId: tenantId, subscriberId: subscriberId) } } ?? tx.planRecipients(runId: runId)
                (key, kind) = ("\(runId.lowercasedText)/cancel", "cancel")
            case .timer:
                continue
            }
            // A pair that appears twice in the batch is sent once.
            for device in devices where device.platform == "ios" && seen.insert(key + "\u{0}" + device.id.lowercasedText).inserted {
                let request = DeliveryRequest(tenantId: message.tenantId, runId: message.runId, idempotencyKey: key,
                                              deviceId: device.id, kind: kind, messageId: messageId)
                targets.append(Target(message: message, device: device, key: key, claim: claiming ? .alreadyDone : .send, request: request))
                requests.append(request)
            }
        }
        guard claiming else { return targets }
        // Claim in a fixed order, so concurrent batches take the row locks alike (no deadlocks).
        let order = requests.indices.sorted { a, b in
            let (x, y) = (requests[a], requests[b])
            return x.idempotencyKey != y.idempotencyKey ? x.idempotencyKey < y.idempotencyKey : UUID.precedes(x.deviceId, y.deviceId)
        }
        let claims = try tx.claimDeliveries(order.map { requests[$0] }, at: now)
        for (position, index) in order.enumerated() { targets[index].claim = claims[position] }
        return targets
    }

    private func notification(_ target: Target) -> PushNotification {
        let environment = PushNotification.Environment(rawValue: target.device.environment) ?? .production
        switch target.message {
        case .sendPlan(_, _, _, let delivery):
            return .background(deviceToken: target.device.token, topic: target.device.topic, environment: environment,
                               expiration: delivery.headers.expiration.map { Date(timeIntervalSince1970: Double($0)) } ?? delivery.moment,
                               payload: Data(delivery.body.utf8))
        case .sendCancel(_, _, _, let delivery, _):
            return .background(deviceToken: target.device.token, topic: target.device.topic, environment: environment,
                               expiration: nil, payload: Data(delivery.body.utf8))
        case .sendAlert(_, _, _, _, let delivery):
            return .alert(deviceToken: target.device.token, topic: target.device.topic, environment: environment,
                          collapseId: delivery.headers.collapseId ?? delivery.idempotencyKey, expiration: delivery.expiresAt,
                          payload: Data(delivery.body.utf8))
        case .timer:
            preconditionFailure("timers are not sent")
        }
    }

    /// The delivery row's outcome; a dead token deactivates its device.
    private func record(_ result: PushResult, for target: Target, tx: any StoreTransaction, now: Date) throws -> DeliveryOutcome {
        let status: String
        switch result.outcome {
        case .delivered: status = "sent"
        case .deviceUnregistered(let reason, let since):
            status = "unregistered"
            try tx.deactivateDevice(target.device.id, reason: reason, at: since ?? now, deadSince: since)
        case .rejected: status = "rejected"
        case .failed: status = "failed"
        }
        let kind: String
        switch target.message {
        case .sendPlan: kind = "plan"
        case .sendCancel: kind = "cancel"
        case .sendAlert(_, _, _, let fallback, _): kind = fallback ? "fallback" : "push"
        case .timer: kind = "timer"
        }
        context.metrics.increment("buzzkit_pushes_total", ["kind": kind, "outcome": result.outcomeName], help: "Pushes sent to APNs by kind and outcome")
        return DeliveryOutcome(status: status, apnsId: result.apnsId?.uuidString, httpStatus: result.status, reason: result.reason, attempts: result.attempts)
    }
}
