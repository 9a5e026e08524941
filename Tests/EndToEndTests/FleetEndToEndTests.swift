import DeviceSimulator
import Foundation
import XCTest

/// The mission, end to end: a fleet of simulated phones running the real SDK, against the
/// real API, one worker process per queue, the scheduler, PostgreSQL, RabbitMQ and the APNs
/// stand-in. Every behaviour must end with zero violations.
final class FleetEndToEndTests: XCTestCase {
    func testAFleetOfPhonesSeesEveryPlanExactlyOnce() async throws {
        let stack = try await ServerStack(prefix: "e2e")
        defer { XCTAssertEqual(stack.stop(), [], "every process drains and exits 0 on SIGTERM") }
        let configuration = stack.fleet(subscribers: 80)
        let report = try await Fleet(configuration: configuration, router: stack.standIn.router).run()
        print(report.text)
        XCTAssertEqual(report.violations, [], report.text)
        // 80 subscribers, 4 per behaviour; each logout-switch phone's second person and each
        // returning offline-through-cancel phone's second workout add one notification, each
        // crowded subscriber 71 more doses.
        XCTAssertEqual(report.outcomes.count, 80 + 4 + 2 + 8 * 71)
        let rows = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.behaviour, $0) })
        XCTAssertEqual(rows[.healthy]?.exactlyOnce, 4)
        XCTAssertEqual(rows[.forceQuit]?.exactlyOnce, 4, "force-quit phones see the fallback")
        XCTAssertEqual(rows[.completes]?.afterCancel, 0)
        XCTAssertEqual(rows[.logoutSwitch]?.exactlyOnce, 4, "the person who signed in sees their own plan, by sync")
        XCTAssertEqual(rows[.offlineThroughCancel]?.exactlyOnce, 2, "the returning phones see the new workout, not the moved one")
        XCTAssertEqual(rows[.budgetExhausted]?.exactlyOnce, 4)
        XCTAssertEqual(rows[.reinstalled]?.exactlyOnce, 4)
        XCTAssertEqual(rows[.denied]?.exactlyOnce, 4, "the fallback reaches the phone that may show it")
        XCTAssertEqual(rows[.lastSecond]?.exactlyOnce, 4)
        let lastSecond = report.outcomes.filter { $0.behaviour == .lastSecond && $0.shown.count == 1 && $0.shown[0].kind == "local" }
        XCTAssertGreaterThanOrEqual(lastSecond.count, 2, "an acknowledgment accepted in the last second counts: the local notification is the one shown")
        XCTAssertEqual(rows[.crowded]?.exactlyOnce, 4 * 72, "every dose once, locally or by the fallback")
        XCTAssertEqual(rows[.crowdedTwoDevices]?.exactlyOnce, 4 * 72)
        XCTAssertGreaterThan(report.platform.released, 0, "crowded phones let go of acknowledged plans and said so")
        XCTAssertEqual(rows[.appOwnRequests]?.exactlyOnce, 4, "a plan the app's own reminders pushed out is the fallback, once")
        XCTAssertEqual(rows[.tapper]?.exactlyOnce, 4)
        XCTAssertEqual(rows[.lowPower]?.exactlyOnce, 4, "Low Power Mode: the plan when the app is opened, else the fallback")
        XCTAssertEqual(rows[.locked]?.exactlyOnce, 4, "a phone not unlocked since it restarted: the fallback, or the plan after the unlock")
        XCTAssertGreaterThan(report.platform.protectedRefusals, 0, "the locked phones' apps could not read their files")
        let unlockedInTime = report.outcomes.filter { $0.behaviour == .locked && $0.shown.count == 1 && $0.shown[0].kind == "local" }
        XCTAssertGreaterThanOrEqual(unlockedInTime.count, 1, "unlocked and opened before the moment, the phone shows its own copy")
        XCTAssertEqual(report.platform.taps, 4, "each tapper tapped their reminder (two of them launching the app)")
        XCTAssertGreaterThanOrEqual(report.platform.opensTracked, 4, "every tap went through BuzzKit's notification delegate")
        XCTAssertEqual(report.platform.appleRulesBroken, [], "no completion handler called twice or off the main thread")
        XCTAssertEqual(rows[.doneFromLockScreen]?.exactlyOnce, 4)
        XCTAssertEqual(report.doneNotRecorded, [], "each Done chosen on the lock screen reached the run summary")
        XCTAssertEqual(rows[.snoozer]?.exactlyOnce, 4)
        XCTAssertEqual(rows[.snoozer]?.snoozedOnce, 4, "each snoozed reminder came back once, after the snooze")
        XCTAssertEqual(report.platform.actionsChosen, 8)
        XCTAssertEqual(report.platform.actionsTracked, 8, "every button went through BuzzKit's notification delegate")
        XCTAssertEqual(report.platform.snoozes, 4)
        let pushedOut = report.outcomes.filter { $0.behaviour == .appOwnRequests && $0.shown.count == 1 && $0.shown[0].kind == "remote" }
        XCTAssertEqual(pushedOut.count, 4, "the SDK let go of the plan iOS dropped, so the server sent its fallback")
        let travellers = report.outcomes.filter { $0.behaviour == .traveller }
        XCTAssertEqual(travellers.filter { $0.shown.count == 1 && $0.shown[0].kind == "local" }.count, 4,
                       "travellers see the local notification at the planned wall clock where they landed")
    }
}
