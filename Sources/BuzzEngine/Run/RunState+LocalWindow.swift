import BuzzKitWire
import Foundation

extension RunState {
    /// Opens a local window: a `waitUntil` followed by a local send (`wait` given), or an
    /// immediate local plan (`wait` nil, due ``RunContext/immediateLocalLead`` seconds from now).
    ///
    /// The moment gets quiet hours and `fireAt` in the subscriber's zone. If it is still
    /// ahead, the plan goes out now (live runs with a subscriber) and a fallback-check timer
    /// is set for the moment. If it is not ahead, there is no time for a plan: the
    /// notification goes at once as an ordinary push through the fallback path.
    mutating func openLocalWindow(wait: (path: StepPath, name: String, wait: Step.WaitUntil)?, sendPath: StepPath,
                                  send: Step.Send, now: Date, actions: inout [RunAction]) {
        guard let sendStep = workflow.step(at: sendPath) else { return }
        let rawMoment: Date
        if let wait {
            do {
                rawMoment = try momentOf(wait.wait, path: wait.path, now: now)
            } catch {
                fail(error, step: Step(name: wait.name, kind: .waitUntil(wait.wait)), path: wait.path, now: now)
                return
            }
        } else {
            rawMoment = now.addingTimeInterval(Double(max(0, context.immediateLocalLead)))
        }
        let zone = context.subscriberZone
        let result = Moments.finalize(moment: max(rawMoment, now), subscriberZone: zone,
                                      quietHours: context.quietHours, policy: send.quietHours)
        let hasTime = result.moment > now
        let moment = hasTime ? result.moment : rawMoment
        let localId = PayloadBuilder.localId(runId: runId, stepName: sendStep.name)
        let plan = LocalPlan(id: localId, messageId: PayloadBuilder.messageId(localId: localId),
                             fireAt: hasTime ? result.fireAt : zone.wallClock(at: rawMoment),
                             title: send.title.render(trigger: trigger.properties),
                             body: send.body.render(trigger: trigger.properties),
                             deepLink: send.deepLink, data: send.data, cancelOn: workflow.deviceCancelOn,
                             expiresAt: moment.addingTimeInterval(Double(send.expiresAfter)),
                             presentation: send.presentation, actions: send.actions)
        let encoded: EncodedPayload<SilentPlanPayload>
        do {
            // The fallback body is always smaller than the plan body (same strings, less
            // structure: no fireAt, no cancelOn), so checking the plan checks both.
            encoded = try PayloadBuilder.silentPlan(plan, path: "\(sendPath).send")
        } catch {
            if let wait { steps.append(StepRecord(name: wait.name, path: wait.path, status: .completed, startedAt: now, finishedAt: now)) }
            fail(error, step: sendStep, path: sendPath, now: now)
            return
        }
        if let wait {
            steps.append(StepRecord(name: wait.name, path: wait.path, status: hasTime ? .waiting : .completed, startedAt: now,
                                    finishedAt: hasTime ? nil : now, dueAt: moment))
        }
        let sendLive = hasTime && context.sendsLive
        let window = LocalWindowRecord(plan: plan, moment: moment, shiftedByQuietHours: hasTime && result.shiftedByQuietHours,
                                       planSent: sendLive)
        steps.append(StepRecord(name: sendStep.name, path: sendPath, status: .planned, startedAt: now, dueAt: moment, local: window))
        let windowIndex = steps.count - 1
        guard hasTime else {
            if settleWindow(at: windowIndex, reason: RunSummary.LocalWindow.Fallback.momentPassed, now: now, actions: &actions) {
                cursor = next(after: sendPath)
            }
            return
        }
        if sendLive {
            actions.append(.sendLocalPlan(LocalPlanDelivery(runId: runId, stepName: sendStep.name, moment: moment, encoded: encoded)))
            planSent = true
        }
        openWindow = windowIndex
        let timerPath = wait?.path ?? sendPath
        cursor = timerPath
        schedule(.localWindowDue, at: moment, path: timerPath, actions: &actions)
    }

    /// Decides a local window at its moment (or at once when its moment had passed):
    /// acknowledged → "scheduled on device"; dry run or no subscriber → not sent; otherwise
    /// the fallback push with its idempotency key, for `reason`, or for the window's release
    /// reason when every device that acknowledged it let go of it since. Returns false when
    /// the run failed.
    mutating func settleWindow(at index: Int, reason defaultReason: String, now: Date, actions: inout [RunAction]) -> Bool {
        guard var window = steps[index].local, window.fallback == nil else { return true }
        let reason = window.releaseReason ?? defaultReason
        let key = PayloadBuilder.fallbackIdempotencyKey(localId: window.localId)
        if window.acknowledged {
            steps[index].status = .scheduledOnDevice
            window.fallback = RunSummary.LocalWindow.Fallback(sent: false, idempotencyKey: key, reason: RunSummary.LocalWindow.Fallback.confirmed)
        } else if context.dryRun {
            steps[index].status = .notSentDryRun
            window.fallback = RunSummary.LocalWindow.Fallback(sent: false, idempotencyKey: key, reason: RunSummary.LocalWindow.Fallback.dryRun)
        } else if !context.hasSubscriber {
            steps[index].status = .notSentNoSubscriber
            window.fallback = RunSummary.LocalWindow.Fallback(sent: false, idempotencyKey: key, reason: RunSummary.LocalWindow.Fallback.noSubscriber)
        } else {
            let encoded: EncodedPayload<AlertPayload>
            do {
                encoded = try PayloadBuilder.fallback(for: window.plan, path: "\(steps[index].path).send")
            } catch {
                failRecord(error, index: index, now: now)
                return false
            }
            actions.append(.sendFallback(AlertDelivery(runId: runId, stepName: steps[index].name, idempotencyKey: key,
                                                       reason: reason, encoded: encoded, expiresAt: window.plan.expiresAt)))
            steps[index].status = .fallbackSent
            window.fallback = RunSummary.LocalWindow.Fallback(sent: true, idempotencyKey: key, reason: reason)
        }
        steps[index].local = window
        steps[index].finishedAt = now
        return true
    }
}

extension RunState {
    /// The local id of the window the pending timer decides, when that decision can be made
    /// outside the run: the plan went out and, once decided "scheduled on device", the run has
    /// nothing left to do (the window is its last step). A runner may then settle the window at
    /// its moment by looking at the acknowledgments alone, without loading the run, and feed
    /// the outcome back later with ``settleAcknowledged(localId:acknowledgedAt:decidedAt:)``.
    /// Nil otherwise (the timer must be handled as usual).
    public var settleableWindow: String? {
        guard let localId = decidableWindow, let index = openWindow, next(after: steps[index].path) == nil else { return nil }
        return localId
    }

    /// The local id of the window the pending timer decides, when its plan went out: a runner
    /// decides it from the acknowledgments (the run's own count of them is only what it learnt
    /// so far) and feeds the outcome in with ``settleAcknowledged(localId:acknowledgedAt:decidedAt:)``
    /// or ``settleUnacknowledged(localId:reason:decidedAt:)``, the run going on from there. Nil
    /// otherwise: a window whose plan never went out (a dry run, no subscriber) has no
    /// acknowledgment to count, and the timer decides it.
    public var decidableWindow: String? {
        guard !status.isFinal, let timer = pendingTimer, timer.purpose == .localWindowDue, let index = openWindow,
              let window = steps[index].local, window.planSent, window.fallback == nil else { return nil }
        return window.localId
    }

    /// Records a decision made at the moment by the runner: at `decidedAt` a device held the
    /// plan of window `localId`, acknowledged at `acknowledgedAt`. The same state results as
    /// from the acknowledgment and then the timer at `decidedAt` (the window "scheduled on
    /// device", the run going on to the next step or completed). Does nothing when the window
    /// is no longer the one the pending timer decides (the run was cancelled or decided meanwhile).
    public mutating func settleAcknowledged(localId: String, acknowledgedAt: Date, decidedAt: Date) -> [RunAction] {
        guard decidableWindow == localId, let timer = pendingTimer, let index = openWindow, let window = steps[index].local else { return [] }
        var actions = handle(.acknowledged(localId: localId, messageId: window.plan.messageId), now: acknowledgedAt)
        actions += handle(.timerFired(timer), now: decidedAt)
        return actions
    }

    /// Records a fallback decided and sent at the moment by the runner: at `decidedAt` no device
    /// held the plan of window `localId`, for `reason` (``RunSummary/LocalWindow/Fallback``'s
    /// `noConfirmation`, or a release reason). The same state results as from the timer at
    /// `decidedAt` with that reason (the window "fallback sent", the run going on or
    /// completed), but the fallback is not asked for again: the runner that decided it sent it.
    /// Does nothing when the window is no longer the one the pending timer decides.
    public mutating func settleUnacknowledged(localId: String, reason: String, decidedAt: Date) -> [RunAction] {
        guard decidableWindow == localId, let timer = pendingTimer, let index = openWindow, let window = steps[index].local else { return [] }
        var actions: [RunAction] = []
        if reason != RunSummary.LocalWindow.Fallback.noConfirmation || window.acknowledged {
            actions += handle(.released(localId: localId, messageId: window.plan.messageId, reason: reason), now: decidedAt)
        }
        actions += handle(.timerFired(timer), now: decidedAt)
        return actions.filter { if case .sendFallback = $0 { return false } else { return true } }
    }
}
