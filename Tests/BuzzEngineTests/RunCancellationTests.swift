import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class RunCancellationTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")

    private func started(_ context: RunContext = RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin"),
                         steps: [JSONValue]? = nil) -> (RunState, RunTimer?) {
        let workflow = steps.map { Fixtures.workflow(steps: $0) } ?? Fixtures.workflow(Fixtures.legDay)
        var run = RunState(workflow: workflow, trigger: Fixtures.trigger(), context: context)
        let timer = run.handle(.start, now: begins).timers.first
        return (run, timer)
    }

    func testCancelOnWithoutWhereCancelsAndTellsDevices() throws {
        var (run, timer) = started()
        let at = instant("2026-11-30T18:00:00Z")
        let actions = run.handle(.event(Fixtures.event("workout.completed")), now: at)
        XCTAssertTrue(actions.cancelsTimers)
        XCTAssertEqual(actions.cancels.map(\.runId), ["run-1"])
        XCTAssertEqual(actions.cancels.first?.body, #"{"aps":{"content-available":1},"bk.cancel":{"id":"run-1"}}"#)
        XCTAssertEqual(actions.cancels.first?.headers, APNsHeaders.cancel)
        XCTAssertEqual(actions.statuses, [.cancelled])
        XCTAssertEqual(run.cancellation, RunSummary.Cancellation(by: .event, event: "workout.completed", at: at))
        XCTAssertEqual(run.steps.map(\.status), [.cancelled, .cancelled])
        XCTAssertEqual(run.steps.last?.finishedAt, at)
        // Nothing is sent after the cancel: not at the moment, not on another cancel.
        XCTAssertTrue(run.handle(.timerFired(try XCTUnwrap(timer)), now: instant("2026-12-01T06:00:00Z")).isEmpty)
        XCTAssertTrue(run.handle(.cancel, now: at).isEmpty)
        XCTAssertTrue(run.handle(.event(Fixtures.event("workout.completed")), now: at).isEmpty)
    }

    func testCancelOnWithWhereIsEvaluatedAgainstTheTrigger() {
        var (run, _) = started()
        XCTAssertTrue(run.handle(.event(Fixtures.event("workout.moved", ["workoutId": "w2"])), now: begins).isEmpty)
        XCTAssertTrue(run.handle(.event(Fixtures.event("workout.moved")), now: begins).isEmpty)
        XCTAssertEqual(run.status, .waiting)
        let actions = run.handle(.event(Fixtures.event("workout.moved", ["workoutId": "w1"])), now: begins)
        XCTAssertEqual(actions.cancels.count, 1)
        XCTAssertEqual(run.cancellation?.event, "workout.moved")
    }

    func testEventsOfOtherSubscribersAndOtherNamesAreIgnored() {
        var (run, _) = started()
        XCTAssertTrue(run.handle(.event(Fixtures.event("workout.completed", subscriber: "u_999")), now: begins).isEmpty)
        XCTAssertTrue(run.handle(.event(Fixtures.event("app.opened")), now: begins).isEmpty)
        XCTAssertEqual(run.status, .waiting)
    }

    func testAPICancel() {
        var (run, _) = started()
        let actions = run.handle(.cancel, now: begins)
        XCTAssertEqual(actions.cancels.count, 1)
        XCTAssertEqual(run.cancellation, RunSummary.Cancellation(by: .api, event: nil, at: begins))
        XCTAssertEqual(run.status, .cancelled)
    }

    func testNoDeviceCancelWhenNoPlanWentOut() {
        var (run, _) = started(steps: [["name": "d", "delay": ["hours": 1]],
                                       ["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]]])
        let actions = run.handle(.cancel, now: begins)
        XCTAssertTrue(actions.cancels.isEmpty)
        XCTAssertTrue(actions.cancelsTimers)
        XCTAssertEqual(run.status, .cancelled)
    }

    func testDeviceCancelAfterAnEarlierWindowFinished() throws {
        var (run, timer) = started(steps: [
            ["name": "w", "waitUntil": ["time": "07:00", "timezone": "subscriber"]],
            ["name": "nudge", "send": ["deliver": "local", "title": "T", "body": "B"]],
            ["name": "d", "delay": ["days": 1]],
        ])
        _ = run.handle(.acknowledged(localId: "run-1/nudge", messageId: nil), now: begins)
        let afterWindow = run.handle(.timerFired(try XCTUnwrap(timer)), now: instant("2026-12-01T06:00:00Z"))
        XCTAssertEqual(afterWindow.timers.first?.purpose, .waitEnds)
        // A device in another zone may still hold the plan, so a cancel still tells devices.
        XCTAssertEqual(run.handle(.cancel, now: instant("2026-12-01T07:00:00Z")).cancels.count, 1)
    }

    func testCancelAfterCompletionDoesNothing() {
        var (run, _) = started(steps: [["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]]])
        XCTAssertEqual(run.status, .completed)
        XCTAssertTrue(run.handle(.cancel, now: begins).isEmpty)
        XCTAssertNil(run.cancellation)
    }

    func testCancelBeforeStart() {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(), context: RunContext(runId: "r"))
        let actions = run.handle(.cancel, now: begins)
        XCTAssertEqual(actions.statuses, [.cancelled])
        XCTAssertTrue(run.handle(.start, now: begins).isEmpty)
        XCTAssertTrue(run.steps.isEmpty)
    }
}
