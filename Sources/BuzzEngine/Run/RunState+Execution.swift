import BuzzKitWire
import Foundation

extension RunState {
    /// Runs steps from the cursor until one waits, the run fails, or the steps run out.
    mutating func advance(now: Date, actions: inout [RunAction]) {
        while status == .running, let path = cursor {
            guard let step = workflow.step(at: path) else {
                cursor = nil
                break
            }
            switch step.kind {
            case .waitUntil(let wait):
                if workflow.opensLocalWindow(at: path), case .send(let send)? = workflow.step(at: path.sibling())?.kind {
                    openLocalWindow(wait: (path, step.name, wait), sendPath: path.sibling(), send: send, now: now, actions: &actions)
                } else {
                    beginWait(wait, step: step, path: path, now: now, actions: &actions)
                }
            case .delay(let delay):
                beginTimedStep(step, path: path, until: now.addingTimeInterval(Double(delay.totalSeconds)), now: now, actions: &actions)
            case .branch(let branch):
                let holds = branch.condition.matches(trigger.properties, trigger: trigger.properties)
                steps.append(StepRecord(name: step.name, path: path, status: .completed, startedAt: now, finishedAt: now))
                let arm = holds ? branch.then : branch.else
                cursor = arm.isEmpty ? next(after: path) : path.child(holds ? .then : .else, 0)
            case .send(let send):
                if send.deliver == .local {
                    openLocalWindow(wait: nil, sendPath: path, send: send, now: now, actions: &actions)
                } else {
                    beginPush(send, step: step, path: path, now: now, actions: &actions)
                }
            }
        }
        if status == .running && cursor == nil && started {
            status = .completed
        }
    }

    /// The step after `path` in execution order: the next sibling, or the step after the
    /// enclosing branch; `nil` at the end of the workflow.
    func next(after path: StepPath) -> StepPath? {
        var current = path
        while true {
            let sibling = current.sibling()
            if let list = workflow.steps(containing: sibling), sibling.index < list.count { return sibling }
            guard let parent = current.parent else { return nil }
            current = parent
        }
    }

    mutating func schedule(_ purpose: RunTimer.Purpose, at moment: Date, path: StepPath, actions: inout [RunAction]) {
        generation += 1
        let timer = RunTimer(runId: runId, generation: generation, stepPath: path, purpose: purpose, at: moment)
        pendingTimer = timer
        status = .waiting
        actions.append(.scheduleTimer(timer))
    }

    private mutating func beginWait(_ wait: Step.WaitUntil, step: Step, path: StepPath, now: Date, actions: inout [RunAction]) {
        let moment: Date
        do {
            moment = try momentOf(wait, path: path, now: now)
        } catch {
            fail(error, step: step, path: path, now: now)
            return
        }
        beginTimedStep(step, path: path, until: moment, now: now, actions: &actions)
    }

    /// A wait or delay: done at once when `until` is not after `now`, else a timer.
    private mutating func beginTimedStep(_ step: Step, path: StepPath, until moment: Date, now: Date, actions: inout [RunAction]) {
        if moment <= now {
            steps.append(StepRecord(name: step.name, path: path, status: .completed, startedAt: now, finishedAt: now, dueAt: moment))
            cursor = next(after: path)
        } else {
            steps.append(StepRecord(name: step.name, path: path, status: .waiting, startedAt: now, dueAt: moment))
            schedule(.waitEnds, at: moment, path: path, actions: &actions)
        }
    }

    /// The raw moment a `waitUntil` ends (no quiet hours; those belong to sends).
    func momentOf(_ wait: Step.WaitUntil, path: StepPath, now: Date) throws(EngineError) -> Date {
        switch wait {
        case .time(let time, let zoneChoice):
            let zone: ZoneRules
            switch zoneChoice {
            case .subscriber: zone = context.subscriberZone
            case .named(let identifier): zone = ZoneRules(identifier: identifier) ?? context.subscriberZone
            }
            return Moments.nextOccurrence(of: time, in: zone, atOrAfter: now)
        case .at(let template, let offset):
            let text = template.render(trigger: trigger.properties)
            guard let instant = RFC3339.parse(text) else {
                throw EngineError(code: .unresolvedInstant, path: "\(path).waitUntil.at",
                                  message: "\"\(template.source)\" gave \"\(text)\", which is not an RFC 3339 instant; the trigger event needs that property as a timestamp such as 2026-11-30T09:00:00Z")
            }
            return instant.addingTimeInterval(Double(offset?.seconds ?? 0))
        }
    }

    private mutating func beginPush(_ send: Step.Send, step: Step, path: StepPath, now: Date, actions: inout [RunAction]) {
        if send.quietHours == .shift, let quietHours = context.quietHours,
           let end = Moments.quietHoursEnd(after: now, quietHours: quietHours, in: context.subscriberZone) {
            steps.append(StepRecord(name: step.name, path: path, status: .waiting, startedAt: now, dueAt: end))
            schedule(.quietHoursEnd, at: end, path: path, actions: &actions)
            return
        }
        steps.append(StepRecord(name: step.name, path: path, status: .waiting, startedAt: now))
        if performPush(send, recordIndex: steps.count - 1, now: now, actions: &actions) {
            cursor = next(after: path)
        }
    }

    /// Sends (or, in a dry run or without a subscriber, records) a push step. Returns false
    /// when the run failed.
    mutating func performPush(_ send: Step.Send, recordIndex index: Int, now: Date, actions: inout [RunAction]) -> Bool {
        let name = steps[index].name
        let alert = AlertPayload(title: send.title.render(trigger: trigger.properties),
                                 body: send.body.render(trigger: trigger.properties), presentation: send.presentation,
                                 messageId: PayloadBuilder.messageId(localId: PayloadBuilder.localId(runId: runId, stepName: name)),
                                 deepLink: send.deepLink, data: send.data)
        let encoded: EncodedPayload<AlertPayload>
        do {
            encoded = try PayloadBuilder.alert(alert, path: "\(steps[index].path).send")
        } catch {
            failRecord(error, index: index, now: now)
            return false
        }
        if context.dryRun {
            steps[index].status = .notSentDryRun
        } else if !context.hasSubscriber {
            steps[index].status = .notSentNoSubscriber
        } else {
            let key = PayloadBuilder.pushIdempotencyKey(runId: runId, stepName: name)
            actions.append(.sendPush(AlertDelivery(runId: runId, stepName: name, idempotencyKey: key, reason: nil, encoded: encoded,
                                                   expiresAt: now.addingTimeInterval(Double(send.expiresAfter)))))
            steps[index].status = .sent
        }
        steps[index].finishedAt = now
        return true
    }

    /// Fails the run at a step that has no record yet.
    mutating func fail(_ error: EngineError, step: Step, path: StepPath, now: Date) {
        steps.append(StepRecord(name: step.name, path: path, status: .waiting, startedAt: now))
        failRecord(error, index: steps.count - 1, now: now)
    }

    /// Fails the run at a step's record.
    mutating func failRecord(_ error: EngineError, index: Int, now: Date) {
        steps[index].status = .failed
        steps[index].finishedAt = now
        failure = error
        status = .failed
        cursor = nil
        openWindow = nil
        pendingTimer = nil
    }
}
