import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class RunDryRunTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")
    private let steps: [JSONValue] = [
        ["name": "late", "waitUntil": ["time": "23:00", "timezone": "subscriber"]],
        ["name": "nudge", "send": ["deliver": "local", "title": "Hi {{trigger.name}}", "body": "B"]],
        ["name": "push-now", "send": ["deliver": "push", "title": "T", "body": "B", "quietHours": "ignore"]],
    ]

    private func run(dryRun: Bool, hasSubscriber: Bool) -> RunState {
        RunState(workflow: Fixtures.workflow(steps: steps), trigger: Fixtures.trigger(["name": "Maya"]),
                 context: RunContext(runId: "dry", dryRun: dryRun, hasSubscriber: hasSubscriber,
                                     subscriberTimeZone: "America/New_York", quietHours: Fixtures.quiet))
    }

    func testADryRunRecordsEverythingAndSendsNothing() throws {
        var state = run(dryRun: true, hasSubscriber: true)
        let start = state.handle(.start, now: begins)
        XCTAssertTrue(start.sends.isEmpty)
        let timer = try XCTUnwrap(start.timers.first)
        let window = try XCTUnwrap(state.steps.last?.local)
        XCTAssertEqual(window.plan.title, "Hi Maya")
        XCTAssertEqual(window.plan.id, "dry/nudge")
        XCTAssertEqual(window.moment, instant("2026-12-01T13:00:00Z"))
        XCTAssertTrue(window.shiftedByQuietHours)
        XCTAssertFalse(window.planSent)
        XCTAssertEqual(timer.at, window.moment)
        // Acknowledgments cannot count for a plan that never went out.
        XCTAssertTrue(state.handle(.acknowledged(localId: "dry/nudge", messageId: nil), now: begins).isEmpty)
        let end = state.handle(.timerFired(timer), now: timer.at)
        XCTAssertTrue(end.sends.isEmpty)
        XCTAssertEqual(state.steps.map(\.status), [.completed, .notSentDryRun, .notSentDryRun])
        XCTAssertEqual(state.steps[1].local?.fallback, RunSummary.LocalWindow.Fallback(sent: false, idempotencyKey: "dry/nudge/fallback", reason: RunSummary.LocalWindow.Fallback.dryRun))
        XCTAssertEqual(state.status, .completed)
        XCTAssertTrue(state.summary.dryRun)
    }

    func testADryRunCancelSendsNoCancel() {
        var state = run(dryRun: true, hasSubscriber: true)
        _ = state.handle(.start, now: begins)
        let actions = state.handle(.cancel, now: begins)
        XCTAssertTrue(actions.sends.isEmpty)
        XCTAssertTrue(actions.cancelsTimers)
        XCTAssertEqual(state.status, .cancelled)
    }

    func testARunWithoutSubscriberHasNoFallback() throws {
        var state = run(dryRun: false, hasSubscriber: false)
        let start = state.handle(.start, now: begins)
        XCTAssertTrue(start.sends.isEmpty)
        let timer = try XCTUnwrap(start.timers.first)
        let end = state.handle(.timerFired(timer), now: timer.at)
        XCTAssertTrue(end.sends.isEmpty)
        XCTAssertEqual(state.steps.map(\.status), [.completed, .notSentNoSubscriber, .notSentNoSubscriber])
        XCTAssertEqual(state.steps[1].local?.fallback?.sent, false)
        XCTAssertEqual(state.steps[1].local?.fallback?.reason, RunSummary.LocalWindow.Fallback.noSubscriber)
        XCTAssertTrue(state.handle(.cancel, now: timer.at).isEmpty)
    }

    func testASubscriberThatAppearsLaterGetsLaterSends() throws {
        var state = run(dryRun: false, hasSubscriber: false)
        let timer = try XCTUnwrap(state.handle(.start, now: begins).timers.first)
        state.refresh(hasSubscriber: true, subscriberTimeZone: "America/New_York", tenantDefaultTimeZone: nil, quietHours: Fixtures.quiet)
        let end = state.handle(.timerFired(timer), now: timer.at)
        // The plan never went out, so the window falls back; the push goes normally.
        XCTAssertEqual(end.fallbacks.count, 1)
        XCTAssertEqual(end.pushes.count, 1)
    }
}
