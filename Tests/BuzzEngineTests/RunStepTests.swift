import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class RunStepTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")

    private func run(_ steps: [JSONValue], trigger: [String: JSONValue] = ["workoutId": "w1"],
                     context: RunContext = RunContext(runId: "r", subscriberTimeZone: "UTC")) -> RunState {
        RunState(workflow: Fixtures.workflow(steps: steps), trigger: Fixtures.trigger(trigger), context: context)
    }

    func testDelayWaitsElapsedTime() throws {
        var state = run([["name": "d", "delay": ["hours": 1, "minutes": 30]],
                         ["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]]])
        let timer = try XCTUnwrap(state.handle(.start, now: begins).timers.first)
        XCTAssertEqual(timer.at, begins.addingTimeInterval(5400))
        XCTAssertEqual(timer.purpose, .waitEnds)
        XCTAssertEqual(state.steps.first?.dueAt, timer.at)
        let actions = state.handle(.timerFired(timer), now: timer.at)
        XCTAssertEqual(actions.pushes.count, 1)
        XCTAssertEqual(actions.statuses, [.completed])
        XCTAssertEqual(state.steps.map(\.status), [.completed, .sent])
    }

    func testZeroDelayAndPastAtWaitsContinueAtOnce() {
        var state = run([["name": "d", "delay": ["seconds": 0]],
                         ["name": "w", "waitUntil": ["at": "{{trigger.startsAt}}"]],
                         ["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]]],
                        trigger: ["startsAt": "2026-11-29T00:00:00Z"])
        let actions = state.handle(.start, now: begins)
        XCTAssertTrue(actions.timers.isEmpty)
        XCTAssertEqual(actions.pushes.count, 1)
        XCTAssertEqual(state.status, .completed)
        XCTAssertEqual(actions.statuses, [.completed])
    }

    func testAtWithOffsetAndTimeWaits() throws {
        var state = run([["name": "w", "waitUntil": ["at": "{{trigger.startsAt}}", "offset": "-1h30m"]],
                         ["name": "evening", "waitUntil": ["time": "19:30", "timezone": "Asia/Kathmandu"]],
                         ["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]]],
                        trigger: ["startsAt": "2026-12-02T10:00:00+01:00"])
        let first = try XCTUnwrap(state.handle(.start, now: begins).timers.first)
        XCTAssertEqual(first.at, instant("2026-12-02T07:30:00Z"))
        let second = try XCTUnwrap(state.handle(.timerFired(first), now: first.at).timers.first)
        XCTAssertEqual(second.at, instant("2026-12-02T13:45:00Z"))
        XCTAssertEqual(second.generation, first.generation + 1)
        XCTAssertEqual(state.handle(.timerFired(second), now: second.at).pushes.count, 1)
    }

    func testPushSendContents() throws {
        var state = run([["name": "hello", "send": ["deliver": "push", "title": "Hi {{trigger.name}}", "body": "{{trigger.count}} sets",
                                                    "deepLink": "app://x", "data": ["k": 1]]]],
                        trigger: ["name": "Maya", "count": 3])
        let push = try XCTUnwrap(state.handle(.start, now: begins).pushes.first)
        XCTAssertEqual(push.idempotencyKey, "r/hello/push")
        XCTAssertEqual(push.headers, APNsHeaders(pushType: "alert", priority: 10, expiration: Int64(begins.timeIntervalSince1970) + 3600,
                                                 collapseId: "r/hello/push"), "apns-expiration an hour after it is sent")
        XCTAssertNil(push.localId)
        XCTAssertNil(push.reason)
        XCTAssertEqual(push.body, #"{"aps":{"alert":{"title":"Hi Maya","body":"3 sets"},"sound":"default"},"bk":{"messageId":"\#(push.messageId)","deepLink":"app://x","data":{"k":1}}}"#)
    }

    func testPushInsideQuietHoursWaitsForTheEnd() throws {
        var state = run([["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]],
                         ["name": "q", "send": ["deliver": "push", "title": "T", "body": "B", "quietHours": "ignore"]]],
                        context: RunContext(runId: "r", subscriberTimeZone: "America/New_York", quietHours: Fixtures.quiet))
        let night = instant("2026-12-01T04:00:00Z") // 23:00 New York
        let actions = state.handle(.start, now: night)
        XCTAssertTrue(actions.pushes.isEmpty)
        let timer = try XCTUnwrap(actions.timers.first)
        XCTAssertEqual(timer.purpose, .quietHoursEnd)
        XCTAssertEqual(timer.at, instant("2026-12-01T13:00:00Z"))
        XCTAssertEqual(state.steps.first?.status, .waiting)
        let later = state.handle(.timerFired(timer), now: timer.at)
        XCTAssertEqual(later.pushes.map(\.stepName), ["p", "q"])
        XCTAssertEqual(state.status, .completed)
        // With policy "ignore" the push goes at night.
        var ignoring = run([["name": "q", "send": ["deliver": "push", "title": "T", "body": "B", "quietHours": "ignore"]]],
                           context: RunContext(runId: "r", subscriberTimeZone: "America/New_York", quietHours: Fixtures.quiet))
        XCTAssertEqual(ignoring.handle(.start, now: night).pushes.count, 1)
    }

    func testBranchesTakeThenOrElseAndContinueAfter() {
        let steps: [JSONValue] = [
            ["name": "b", "branch": ["if": ["plan": "pro"],
                                     "then": [["name": "t", "send": ["deliver": "push", "title": "pro", "body": "B"]]],
                                     "else": [["name": "e", "send": ["deliver": "push", "title": "free", "body": "B"]]]]],
            ["name": "empty", "branch": ["if": ["plan": "pro"], "then": [["name": "t2", "send": ["deliver": "push", "title": "x", "body": "B"]]]]],
            ["name": "end", "send": ["deliver": "push", "title": "end", "body": "B"]],
        ]
        var pro = run(steps, trigger: ["plan": "pro"])
        XCTAssertEqual(pro.handle(.start, now: begins).pushes.map(\.payload.title), ["pro", "x", "end"])
        XCTAssertEqual(pro.steps.map(\.name), ["b", "t", "empty", "t2", "end"])
        var free = run(steps, trigger: ["plan": "free"])
        XCTAssertEqual(free.handle(.start, now: begins).pushes.map(\.payload.title), ["free", "end"])
        XCTAssertEqual(free.steps.map(\.name), ["b", "e", "empty", "end"])
        XCTAssertEqual(free.status, .completed)
    }

    func testBranchConditionMayUseTriggerReferences() {
        var state = run([["name": "b", "branch": ["if": ["a": ["$trigger": "b"]], "then": [["name": "t", "send": ["deliver": "push", "title": "same", "body": "B"]]]]]],
                        trigger: ["a": 1, "b": 1.0])
        XCTAssertEqual(state.handle(.start, now: begins).pushes.count, 1)
    }

    func testStartIsOnceAndStatusChangesAreReportedOnce() throws {
        var state = run([["name": "d", "delay": ["seconds": 60]], ["name": "d2", "delay": ["seconds": 60]]])
        let first = state.handle(.start, now: begins)
        XCTAssertEqual(first.statuses, [.waiting])
        XCTAssertTrue(state.handle(.start, now: begins).isEmpty)
        let timer = try XCTUnwrap(first.timers.first)
        let middle = state.handle(.timerFired(timer), now: timer.at)
        XCTAssertTrue(middle.statuses.isEmpty, "waiting → waiting is no change")
        XCTAssertEqual(middle.timers.count, 1)
        XCTAssertEqual(state.handle(.timerFired(middle.timers[0]), now: middle.timers[0].at).statuses, [.completed])
    }

    func testUnresolvableAtFailsTheRun() {
        var state = run([["name": "w", "waitUntil": ["at": "{{trigger.startsAt}}"]],
                         ["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]]],
                        trigger: ["startsAt": "next tuesday"])
        let actions = state.handle(.start, now: begins)
        XCTAssertTrue(actions.sends.isEmpty)
        XCTAssertEqual(actions.statuses, [.failed])
        XCTAssertEqual(state.status, .failed)
        XCTAssertEqual(state.failure?.code, .unresolvedInstant)
        XCTAssertEqual(state.failure?.path, "steps[0].waitUntil.at")
        XCTAssertEqual(state.steps.map(\.status), [.failed])
        XCTAssertTrue(state.handle(.cancel, now: begins).isEmpty)
    }

    func testABodyOverTheLimitAfterTemplatesFailsTheRun() {
        var state = run([["name": "w", "waitUntil": ["time": "07:00", "timezone": "UTC"]],
                         ["name": "nudge", "send": ["deliver": "local", "title": "T", "body": "{{trigger.text}}"]]],
                        trigger: ["text": .string(String(repeating: "z", count: 5000))])
        let actions = state.handle(.start, now: begins)
        XCTAssertTrue(actions.sends.isEmpty)
        XCTAssertEqual(state.status, .failed)
        XCTAssertEqual(state.failure?.code, .payloadTooLarge)
        XCTAssertEqual(state.failure?.path, "steps[1].send")
        XCTAssertEqual(state.steps.map(\.status), [.completed, .failed])
        var push = run([["name": "p", "send": ["deliver": "push", "title": "T", "body": "{{trigger.text}}"]]],
                       trigger: ["text": .string(String(repeating: "z", count: 5000))])
        XCTAssertTrue(push.handle(.start, now: begins).sends.isEmpty)
        XCTAssertEqual(push.failure?.code, .payloadTooLarge)
    }

    func testRefreshedSettingsApplyToTheNextWait() throws {
        var state = run([["name": "d", "delay": ["seconds": 60]],
                         ["name": "w", "waitUntil": ["time": "07:00", "timezone": "subscriber"]]])
        let timer = try XCTUnwrap(state.handle(.start, now: begins).timers.first)
        state.refresh(hasSubscriber: true, subscriberTimeZone: "Asia/Tokyo", tenantDefaultTimeZone: nil, quietHours: nil)
        let next = try XCTUnwrap(state.handle(.timerFired(timer), now: timer.at).timers.first)
        XCTAssertEqual(next.at, instant("2026-11-30T22:00:00Z"))
        state.refresh(hasSubscriber: true, subscriberTimeZone: nil, tenantDefaultTimeZone: "Europe/Berlin", quietHours: nil)
        XCTAssertEqual(state.context.subscriberZone.identifier, "Europe/Berlin")
        XCTAssertEqual(state.context.runId, "r")
    }
}
