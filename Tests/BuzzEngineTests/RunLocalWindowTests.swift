import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class RunLocalWindowTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")
    private let moment = instant("2026-12-01T06:00:00Z") // 07:00 Berlin

    private func legDayRun(_ context: RunContext = RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin")) -> RunState {
        RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(), context: context)
    }

    func testThePlanGoesOutWhenTheWaitBegins() throws {
        var run = legDayRun()
        let actions = run.handle(.start, now: begins)
        XCTAssertEqual(actions.plans.count, 1)
        let plan = try XCTUnwrap(actions.plans.first)
        XCTAssertEqual(plan.localId, "run-1/nudge")
        XCTAssertEqual(plan.moment, moment)
        XCTAssertEqual(plan.headers, APNsHeaders(pushType: "background", priority: 5, expiration: 1_796_104_800))
        XCTAssertEqual(plan.payload.local.fireAt, FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0))
        XCTAssertEqual(plan.payload.local.cancelOn, ["workout.completed"])
        XCTAssertEqual(plan.payload.local.title, "Leg day")
        XCTAssertEqual(plan.payload.local.deepLink, "gym://workouts/legs")
        XCTAssertEqual(plan.payload.local.messageId, PayloadBuilder.messageId(localId: "run-1/nudge"))
        XCTAssertEqual(plan.body, plan.payload.jsonString)
        let timer = try XCTUnwrap(actions.timers.first)
        XCTAssertEqual(timer.purpose, .localWindowDue)
        XCTAssertEqual(timer.at, moment)
        XCTAssertEqual(timer.stepPath, StepPath(root: 0))
        XCTAssertEqual(actions.statuses, [.waiting])
        XCTAssertEqual(run.status, .waiting)
        XCTAssertEqual(run.steps.map(\.status), [.waiting, .planned])
        XCTAssertTrue(run.planSent)
    }

    func testAcknowledgedWindowIsScheduledOnDevice() throws {
        var run = legDayRun()
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        XCTAssertTrue(run.handle(.planDelivered(localId: "run-1/nudge", deviceCount: 2), now: begins).isEmpty)
        let messageId = PayloadBuilder.messageId(localId: "run-1/nudge")
        XCTAssertTrue(run.handle(.acknowledged(localId: "run-1/nudge", messageId: messageId), now: instant("2026-11-30T09:00:05Z")).isEmpty)
        let actions = run.handle(.timerFired(timer), now: moment)
        XCTAssertTrue(actions.sends.isEmpty)
        XCTAssertEqual(actions.statuses, [.completed])
        let step = try XCTUnwrap(run.steps.last)
        XCTAssertEqual(step.status, .scheduledOnDevice)
        XCTAssertEqual(step.finishedAt, moment)
        XCTAssertEqual(step.local?.planSentTo, 2)
        XCTAssertEqual(step.local?.acknowledged, true)
        XCTAssertEqual(step.local?.acknowledgedAt, instant("2026-11-30T09:00:05Z"))
        XCTAssertEqual(step.local?.fallback, RunSummary.LocalWindow.Fallback(sent: false, idempotencyKey: "run-1/nudge/fallback", reason: RunSummary.LocalWindow.Fallback.confirmed))
        XCTAssertEqual(run.steps.first?.status, .completed)
        XCTAssertEqual(run.status, .completed)
    }

    func testASettledDecisionGivesTheSameStateAsTheAcknowledgmentAndTheTimer() throws {
        var run = legDayRun()
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        XCTAssertEqual(run.settleableWindow, "run-1/nudge", "the window is the run's last step")
        let acknowledgedAt = instant("2026-11-30T09:00:05Z"), decidedAt = moment.addingTimeInterval(0.2)
        var handled = run
        _ = handled.handle(.acknowledged(localId: "run-1/nudge", messageId: PayloadBuilder.messageId(localId: "run-1/nudge")), now: acknowledgedAt)
        let expected = handled.handle(.timerFired(timer), now: decidedAt)
        // A release recorded before the decision reached the run changes nothing.
        _ = run.handle(.released(localId: "run-1/nudge", messageId: nil, reason: "removed"), now: decidedAt)
        let actions = run.settleAcknowledged(localId: "run-1/nudge", acknowledgedAt: acknowledgedAt, decidedAt: decidedAt)
        XCTAssertEqual(actions, expected)
        XCTAssertEqual(run.summary, handled.summary)
        XCTAssertEqual(run.steps.last?.status, .scheduledOnDevice)
        XCTAssertNil(run.settleableWindow, "decided")
        XCTAssertTrue(run.settleAcknowledged(localId: "run-1/nudge", acknowledgedAt: acknowledgedAt, decidedAt: decidedAt).isEmpty, "once")
    }

    func testOnlyAWindowThatEndsItsLiveRunIsSettleable() throws {
        var cancelled = legDayRun()
        _ = cancelled.handle(.start, now: begins)
        _ = cancelled.handle(.cancel, now: begins)
        XCTAssertNil(cancelled.settleableWindow)
        XCTAssertTrue(cancelled.settleAcknowledged(localId: "run-1/nudge", acknowledgedAt: begins, decidedAt: moment).isEmpty)
        var dry = legDayRun(RunContext(runId: "run-1", dryRun: true, subscriberTimeZone: "Europe/Berlin"))
        _ = dry.handle(.start, now: begins)
        XCTAssertNil(dry.settleableWindow, "no plan went out")
        let followUp = Fixtures.workflow(steps: [
            ["name": "morning-of", "waitUntil": ["time": "07:00", "timezone": "subscriber"]],
            ["name": "nudge", "send": ["deliver": "local", "title": "Leg day", "body": "6:00"]],
            ["name": "later", "delay": ["hours": 1]],
        ])
        var longer = RunState(workflow: followUp, trigger: Fixtures.trigger(), context: RunContext(runId: "run-2", subscriberTimeZone: "Europe/Berlin"))
        _ = longer.handle(.start, now: begins)
        XCTAssertNil(longer.settleableWindow, "steps follow the window")
    }

    func testUnacknowledgedWindowSendsOneFallback() throws {
        var run = legDayRun()
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        let actions = run.handle(.timerFired(timer), now: moment)
        XCTAssertEqual(actions.fallbacks.count, 1)
        let fallback = try XCTUnwrap(actions.fallbacks.first)
        XCTAssertEqual(fallback.idempotencyKey, "run-1/nudge/fallback")
        XCTAssertEqual(fallback.headers.collapseId, "run-1/nudge/fallback")
        XCTAssertEqual(fallback.headers.pushType, "alert")
        XCTAssertEqual(fallback.headers.priority, 10)
        XCTAssertEqual(fallback.reason, "no device confirmed the schedule")
        XCTAssertEqual(fallback.payload.localId, "run-1/nudge")
        XCTAssertEqual(fallback.messageId, PayloadBuilder.messageId(localId: "run-1/nudge"))
        XCTAssertEqual(run.steps.last?.status, .fallbackSent)
        XCTAssertEqual(run.steps.last?.local?.fallback, RunSummary.LocalWindow.Fallback(sent: true, idempotencyKey: "run-1/nudge/fallback",
                                                                         reason: "no device confirmed the schedule"))
        // A redelivered fallback-check (same timer) never sends twice.
        XCTAssertTrue(run.handle(.timerFired(timer), now: moment.addingTimeInterval(5)).isEmpty)
        // A late acknowledgment is recorded but changes no decision and sends nothing.
        let revision = run.revision
        XCTAssertTrue(run.handle(.acknowledged(localId: "run-1/nudge", messageId: nil), now: moment.addingTimeInterval(60)).isEmpty)
        XCTAssertEqual(run.steps.last?.local?.acknowledged, true)
        XCTAssertEqual(run.steps.last?.status, .fallbackSent)
        XCTAssertEqual(run.revision, revision + 1)
    }

    func testAcknowledgmentsAreIdempotentAndChecked() throws {
        var run = legDayRun()
        _ = run.handle(.start, now: begins)
        XCTAssertTrue(run.handle(.acknowledged(localId: "run-1/nudge", messageId: "not-the-message"), now: begins).isEmpty)
        XCTAssertEqual(run.steps.last?.local?.acknowledged, false)
        XCTAssertTrue(run.handle(.acknowledged(localId: "run-1/other", messageId: nil), now: begins).isEmpty)
        let first = instant("2026-11-30T09:01:00Z")
        _ = run.handle(.acknowledged(localId: "run-1/nudge", messageId: nil), now: first)
        let revision = run.revision
        _ = run.handle(.acknowledged(localId: "run-1/nudge", messageId: nil), now: first.addingTimeInterval(30))
        XCTAssertEqual(run.steps.last?.local?.acknowledgedAt, first)
        XCTAssertEqual(run.revision, revision)
        // Delivery counts keep the largest report.
        _ = run.handle(.planDelivered(localId: "run-1/nudge", deviceCount: 3), now: first)
        _ = run.handle(.planDelivered(localId: "run-1/nudge", deviceCount: 1), now: first)
        XCTAssertEqual(run.steps.last?.local?.planSentTo, 3)
    }

    func testLocalScheduledEventCountsAsAcknowledgment() throws {
        var run = legDayRun()
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        let messageId = PayloadBuilder.messageId(localId: "run-1/nudge")
        _ = run.handle(.event(Fixtures.event("$local.scheduled", ["localId": "run-1/nudge", "messageId": .string(messageId)],
                                             subscriber: "someone-else")), now: begins)
        XCTAssertEqual(run.steps.last?.local?.acknowledged, false)
        _ = run.handle(.event(Fixtures.event("$local.scheduled", ["localId": "run-1/nudge", "messageId": .string(messageId)])), now: begins)
        XCTAssertEqual(run.steps.last?.local?.acknowledged, true)
        XCTAssertTrue(run.handle(.timerFired(timer), now: moment).sends.isEmpty)
    }

    func testStaleTimersAreIgnored() throws {
        var run = legDayRun()
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        let wrongGeneration = RunTimer(runId: "run-1", generation: timer.generation + 1, stepPath: timer.stepPath, purpose: timer.purpose, at: timer.at)
        let wrongPath = RunTimer(runId: "run-1", generation: timer.generation, stepPath: StepPath(root: 1), purpose: timer.purpose, at: timer.at)
        let wrongPurpose = RunTimer(runId: "run-1", generation: timer.generation, stepPath: timer.stepPath, purpose: .waitEnds, at: timer.at)
        for stale in [wrongGeneration, wrongPath, wrongPurpose] {
            XCTAssertTrue(run.handle(.timerFired(stale), now: moment).isEmpty)
        }
        XCTAssertEqual(run.status, .waiting)
        // `at` is not compared: a store that rounds instants still fires the timer.
        let rounded = RunTimer(runId: "run-1", generation: timer.generation, stepPath: timer.stepPath, purpose: timer.purpose,
                               at: timer.at.addingTimeInterval(0.0004))
        XCTAssertEqual(run.handle(.timerFired(rounded), now: moment).fallbacks.count, 1)
    }

    func testATimerFiredEarlyIsHandledAtItsMoment() throws {
        var run = legDayRun()
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        _ = run.handle(.timerFired(timer), now: moment.addingTimeInterval(-2))
        XCTAssertEqual(run.steps.last?.finishedAt, moment)
        XCTAssertEqual(run.steps.first?.finishedAt, moment)
    }

    func testImmediateLocalPlanWhenNotAfterAWait() throws {
        let workflow = Fixtures.workflow(steps: [
            ["name": "pause", "delay": ["minutes": 5]],
            ["name": "nudge", "send": ["deliver": "local", "title": "Now", "body": "B"]],
        ])
        var run = RunState(workflow: workflow, trigger: Fixtures.trigger(),
                           context: RunContext(runId: "r", subscriberTimeZone: "UTC", immediateLocalLead: 90))
        let delay = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        let reached = begins.addingTimeInterval(300)
        let actions = run.handle(.timerFired(delay), now: reached)
        XCTAssertEqual(actions.plans.count, 1)
        XCTAssertEqual(actions.plans.first?.moment, reached.addingTimeInterval(90))
        XCTAssertEqual(actions.plans.first?.payload.local.fireAt, FireAt(year: 2026, month: 11, day: 30, hour: 9, minute: 6, second: 30))
        XCTAssertEqual(actions.timers.first?.purpose, .localWindowDue)
        XCTAssertEqual(actions.timers.first?.stepPath, StepPath(root: 1))
        let due = try XCTUnwrap(actions.timers.first)
        XCTAssertEqual(run.handle(.timerFired(due), now: due.at).fallbacks.count, 1)
        XCTAssertEqual(run.status, .completed)
        XCTAssertEqual(run.steps.map(\.status), [.completed, .fallbackSent])
    }

    func testQuietHoursShiftTheWindowBeforeThePlan() throws {
        let workflow = Fixtures.workflow(steps: [
            ["name": "late", "waitUntil": ["time": "23:00", "timezone": "subscriber"]],
            ["name": "nudge", "send": ["deliver": "local", "title": "T", "body": "B"]],
        ])
        var run = RunState(workflow: workflow, trigger: Fixtures.trigger(),
                           context: RunContext(runId: "r", subscriberTimeZone: "America/New_York", quietHours: Fixtures.quiet))
        let actions = run.handle(.start, now: begins)
        XCTAssertEqual(actions.plans.first?.moment, instant("2026-12-01T13:00:00Z"))
        XCTAssertEqual(actions.plans.first?.payload.local.fireAt.hour, 8)
        XCTAssertEqual(run.steps.last?.local?.shiftedByQuietHours, true)
        XCTAssertEqual(actions.timers.first?.at, instant("2026-12-01T13:00:00Z"))
    }

    func testAFixedZoneWaitGetsQuietHoursAndFireAtInTheSubscribersZone() throws {
        let workflow = Fixtures.workflow(steps: [
            ["name": "tokyo-morning", "waitUntil": ["time": "07:00", "timezone": "Asia/Tokyo"]],
            ["name": "nudge", "send": ["deliver": "local", "title": "T", "body": "B"]],
        ])
        var plain = RunState(workflow: workflow, trigger: Fixtures.trigger(), context: RunContext(runId: "r", subscriberTimeZone: "Europe/Berlin"))
        let plan = try XCTUnwrap(plain.handle(.start, now: begins).plans.first)
        XCTAssertEqual(plan.moment, instant("2026-11-30T22:00:00Z"))
        XCTAssertEqual(plan.payload.local.fireAt, FireAt(year: 2026, month: 11, day: 30, hour: 23, minute: 0, second: 0))
        var quiet = RunState(workflow: workflow, trigger: Fixtures.trigger(),
                             context: RunContext(runId: "r", subscriberTimeZone: "Europe/Berlin", quietHours: Fixtures.quiet))
        let shifted = try XCTUnwrap(quiet.handle(.start, now: begins).plans.first)
        XCTAssertEqual(shifted.moment, instant("2026-12-01T07:00:00Z"))
        XCTAssertEqual(shifted.payload.local.fireAt, FireAt(year: 2026, month: 12, day: 1, hour: 8, minute: 0, second: 0))
    }

    func testAMomentAlreadyPastIsSentAtOnceAsAnOrdinaryPush() throws {
        let workflow = Fixtures.workflow(steps: [
            ["name": "before-start", "waitUntil": ["at": "{{trigger.startsAt}}", "offset": "-1h"]],
            ["name": "nudge", "send": ["deliver": "local", "title": "Starting soon", "body": "B"]],
            ["name": "after", "delay": ["seconds": 10]],
        ])
        var run = RunState(workflow: workflow, trigger: Fixtures.trigger(["startsAt": "2026-11-30T09:30:00Z"]),
                           context: RunContext(runId: "r", subscriberTimeZone: "UTC"))
        let actions = run.handle(.start, now: begins)
        XCTAssertTrue(actions.plans.isEmpty)
        XCTAssertEqual(actions.fallbacks.count, 1)
        XCTAssertEqual(actions.fallbacks.first?.reason, RunSummary.LocalWindow.Fallback.momentPassed)
        XCTAssertEqual(actions.fallbacks.first?.idempotencyKey, "r/nudge/fallback")
        XCTAssertEqual(run.steps.map(\.status), [.completed, .fallbackSent, .waiting])
        XCTAssertEqual(run.steps[1].local?.moment, instant("2026-11-30T08:30:00Z"))
        XCTAssertEqual(run.steps[1].local?.planSentTo, 0)
        XCTAssertFalse(run.planSent)
        XCTAssertEqual(actions.timers.first?.purpose, .waitEnds)
    }

    func testAPastMomentInsideQuietHoursIsShiftedAndPlannedInstead() throws {
        let workflow = Fixtures.workflow(steps: [
            ["name": "w", "waitUntil": ["at": "2026-11-30T03:00:00Z"]],
            ["name": "nudge", "send": ["deliver": "local", "title": "T", "body": "B"]],
        ])
        var run = RunState(workflow: workflow, trigger: Fixtures.trigger(),
                           context: RunContext(runId: "r", subscriberTimeZone: "America/New_York", quietHours: Fixtures.quiet))
        // 03:00 UTC had passed; now is 23:30 New York (04:30 UTC), inside quiet hours.
        let actions = run.handle(.start, now: instant("2026-11-30T04:30:00Z"))
        XCTAssertTrue(actions.fallbacks.isEmpty)
        XCTAssertEqual(actions.plans.first?.moment, instant("2026-11-30T13:00:00Z"))
        XCTAssertEqual(run.steps.last?.local?.shiftedByQuietHours, true)
    }

    func testWindowInsideABranchArm() throws {
        let workflow = Fixtures.workflow(steps: [
            ["name": "pro", "branch": ["if": ["plan": "pro"], "then": [
                ["name": "morning", "waitUntil": ["time": "07:00", "timezone": "Europe/Berlin"]],
                ["name": "nudge", "send": ["deliver": "local", "title": "Hi {{trigger.name}}", "body": "B"]],
            ]]],
            ["name": "done", "send": ["deliver": "push", "title": "T", "body": "B", "quietHours": "ignore"]],
        ])
        var run = RunState(workflow: workflow, trigger: Fixtures.trigger(["plan": "pro", "name": "Maya"]),
                           context: RunContext(runId: "r"))
        let actions = run.handle(.start, now: begins)
        XCTAssertEqual(actions.plans.first?.payload.local.title, "Hi Maya")
        XCTAssertEqual(actions.plans.first?.moment, moment)
        let timer = try XCTUnwrap(actions.timers.first)
        XCTAssertEqual(timer.stepPath.description, "steps[0].branch.then[0]")
        let after = run.handle(.timerFired(timer), now: moment)
        XCTAssertEqual(after.fallbacks.count, 1)
        XCTAssertEqual(after.pushes.count, 1)
        XCTAssertEqual(run.steps.map(\.name), ["pro", "morning", "nudge", "done"])
        XCTAssertEqual(run.status, .completed)
    }
}
