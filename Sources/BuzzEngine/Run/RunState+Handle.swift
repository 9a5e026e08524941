import BuzzKitWire
import Foundation

extension RunState {
    /// Applies one input at `now` and returns the work to persist with the new state.
    ///
    /// Inputs that do not apply (a stale timer, an event of another subscriber, a second
    /// start, anything but acknowledgments after the run ended) change nothing and return
    /// no actions. A ``RunAction/statusChanged(_:)`` is appended when the status differs
    /// from the one before the call.
    public mutating func handle(_ input: RunInput, now: Date) -> [RunAction] {
        var actions: [RunAction] = []
        let statusBefore = status
        let changed: Bool
        switch input {
        case .start:
            changed = start(now: now, actions: &actions)
        case .timerFired(let timer):
            changed = timerFired(timer, now: now, actions: &actions)
        case .event(let event):
            changed = receive(event, now: now, actions: &actions)
        case .acknowledged(let localId, let messageId):
            changed = acknowledge(localId: localId, messageId: messageId, now: now)
        case .released(let localId, let messageId, let reason):
            changed = release(localId: localId, messageId: messageId, reason: reason)
        case .planDelivered(let localId, let deviceCount):
            changed = recordDelivery(localId: localId, deviceCount: deviceCount)
        case .cancel:
            changed = cancel(by: .api, event: nil, now: now, actions: &actions)
        }
        if changed { revision += 1 }
        if status != statusBefore { actions.append(.statusChanged(status)) }
        return actions
    }

    private mutating func start(now: Date, actions: inout [RunAction]) -> Bool {
        guard !started, !status.isFinal else { return false }
        started = true
        cursor = workflow.steps.isEmpty ? nil : StepPath(root: 0)
        advance(now: now, actions: &actions)
        return true
    }

    /// A timer fired a little before its `at` (clock skew between workers) is handled as
    /// if it fired at `at`, so no step finishes before it is due.
    private mutating func timerFired(_ timer: RunTimer, now firedAt: Date, actions: inout [RunAction]) -> Bool {
        guard !status.isFinal, let pending = pendingTimer, pending.isSameRequest(as: timer) else { return false }
        let now = max(firedAt, pending.at)
        pendingTimer = nil
        status = .running
        switch pending.purpose {
        case .waitEnds:
            if let index = recordIndex(at: pending.stepPath) {
                steps[index].status = .completed
                steps[index].finishedAt = now
            }
            cursor = next(after: pending.stepPath)
        case .localWindowDue:
            if let waitIndex = recordIndex(at: pending.stepPath), steps[waitIndex].local == nil {
                steps[waitIndex].status = .completed
                steps[waitIndex].finishedAt = now
            }
            guard let windowIndex = openWindow else {
                cursor = next(after: pending.stepPath)
                break
            }
            openWindow = nil
            let sendPath = steps[windowIndex].path
            guard settleWindow(at: windowIndex, reason: RunSummary.LocalWindow.Fallback.noConfirmation, now: now, actions: &actions) else { return true }
            cursor = next(after: sendPath)
        case .quietHoursEnd:
            guard let index = recordIndex(at: pending.stepPath),
                  case .send(let send)? = workflow.step(at: pending.stepPath)?.kind else {
                cursor = next(after: pending.stepPath)
                break
            }
            guard performPush(send, recordIndex: index, now: now, actions: &actions) else { return true }
            cursor = next(after: pending.stepPath)
        }
        advance(now: now, actions: &actions)
        return true
    }

    private mutating func receive(_ event: BuzzEvent, now: Date, actions: inout [RunAction]) -> Bool {
        guard event.subscriberId == trigger.subscriberId else { return false }
        var changed = false
        if event.event == BuzzEvent.localScheduled, case .string(let localId)? = event.properties["localId"] {
            changed = acknowledge(localId: localId, messageId: event.properties["messageId"]?.stringValue, now: now)
        }
        guard !status.isFinal else { return changed }
        for rule in workflow.cancelOn where rule.event == event.event {
            if rule.condition?.matches(event.properties, trigger: trigger.properties) ?? true {
                return cancel(by: .event, event: event.event, now: now, actions: &actions) || changed
            }
        }
        return changed
    }

    private mutating func acknowledge(localId: String, messageId: String?, now: Date) -> Bool {
        guard let index = steps.lastIndex(where: { $0.local?.plan.id == localId }),
              let window = steps[index].local, window.planSent, !window.acknowledged else { return false }
        if let messageId, messageId != window.plan.messageId { return false }
        steps[index].local?.acknowledged = true
        steps[index].local?.acknowledgedAt = now
        steps[index].local?.releaseReason = nil
        return true
    }

    /// No device holds the plan any more: it counts as not acknowledged until a device
    /// acknowledges it again, and the decision at the moment gives `reason`. The decision
    /// itself is never revisited, so a release after it (or after the run ended) is ignored.
    private mutating func release(localId: String, messageId: String?, reason: String) -> Bool {
        guard !status.isFinal, let index = steps.lastIndex(where: { $0.local?.plan.id == localId }),
              let window = steps[index].local, window.planSent, window.fallback == nil else { return false }
        if let messageId, messageId != window.plan.messageId { return false }
        guard window.acknowledged || window.releaseReason != reason else { return false }
        steps[index].local?.acknowledged = false
        steps[index].local?.acknowledgedAt = nil
        steps[index].local?.releaseReason = reason
        return true
    }

    private mutating func recordDelivery(localId: String, deviceCount: Int) -> Bool {
        guard let index = steps.lastIndex(where: { $0.local?.plan.id == localId }),
              let window = steps[index].local, window.planSent, deviceCount > window.planSentTo else { return false }
        steps[index].local?.planSentTo = deviceCount
        return true
    }

    /// Cancels the run (a `cancelOn` event or the API). Pending timers are cancelled, open
    /// steps are marked cancelled, and if any plan went to devices a `bk.cancel` for the run
    /// id follows, which removes everything the run scheduled (devices in other zones may
    /// still hold plans whose moment has passed here). Returns false when the run had
    /// already ended.
    mutating func cancel(by source: RunSummary.Cancellation.Source, event: String?, now: Date, actions: inout [RunAction]) -> Bool {
        guard !status.isFinal else { return false }
        if pendingTimer != nil {
            actions.append(.cancelTimers(runId: runId))
            pendingTimer = nil
        }
        for index in steps.indices where steps[index].isOpen {
            steps[index].status = .cancelled
            steps[index].finishedAt = now
        }
        if planSent {
            actions.append(.sendCancel(CancelDelivery(runId: runId, encoded: PayloadBuilder.cancel(runId: runId))))
        }
        cancellation = RunSummary.Cancellation(by: source, event: event, at: now)
        status = .cancelled
        cursor = nil
        openWindow = nil
        return true
    }
}
