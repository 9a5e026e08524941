import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A process slow to get a thread (a phone under load; the simulator's ten thousand phones on
/// two cores) still answers iOS within the budget: each turn on a thread after the work stops
/// (the timer, the client's actor, the caller's task, the main thread) waits as long as the
/// SDK waited to start, so the work stops that much earlier. In the all-at-once fleet each
/// turn waited up to 1.5 s, a wake's answer took 8 s past the moment its work stopped, and
/// iOS cut off 38 wakes at 30 s.
final class WakeOnASlowProcessTests: XCTestCase {
    private static let began = Date(timeIntervalSince1970: 1_800_000_000)

    func testAWakeThatStartedAtOnceKeepsTheUsualReserve() {
        let wake = WakeDeadline(began: Self.began, budget: 25, startedAt: Self.began.addingTimeInterval(0.01), lateReturn: 0)
        XCTAssertEqual(wake.answerBy.timeIntervalSince(Self.began), 25, accuracy: 0.001)
        XCTAssertEqual(wake.workUntil.timeIntervalSince(Self.began), 22, accuracy: 0.001, "3 s kept for the hold")
    }

    func testAWakeThatWaitedToStartStopsItsWorkEarlierByWhatTheAnswerWillWait() {
        // 1.5 s to start: two turns of 0.75 s; the answer's eight turns may take 6 s.
        let wake = WakeDeadline(began: Self.began, budget: 25, startedAt: Self.began.addingTimeInterval(1.5), lateReturn: 0)
        XCTAssertEqual(wake.answerBy.timeIntervalSince(Self.began), 25, accuracy: 0.001, "iOS's time does not change")
        XCTAssertEqual(wake.workUntil.timeIntervalSince(Self.began), 19, accuracy: 0.001)
    }

    func testAWakeOnAProcessWhoseWaitsCameBackLateStopsItsWorkThatMuchEarlier() {
        let wake = WakeDeadline(began: Self.began, budget: 20, startedAt: Self.began.addingTimeInterval(0.1), lateReturn: 7)
        XCTAssertEqual(wake.answerBy.timeIntervalSince(Self.began), 20, accuracy: 0.001)
        XCTAssertEqual(wake.workUntil.timeIntervalSince(Self.began), 13, accuracy: 0.001,
                       "a wait due at 13 s comes back at 20 s; the start (0.1 s) alone would have kept 17 s")
    }

    func testTheLatenessOfAProcessFadesAndOneWaitAcrossASuspensionCountsLittle() {
        var lateness = DeadlineLateness()
        XCTAssertEqual(lateness.expected(at: Self.began), 0, "a phone that never waited late: full wakes")
        lateness.record(8, at: Self.began, cap: 10)
        lateness.record(2, at: Self.began.addingTimeInterval(1), cap: 10)
        XCTAssertEqual(lateness.expected(at: Self.began.addingTimeInterval(1)), 8 * pow(0.5, 1 / 20), accuracy: 0.001,
                       "the latest worst counts, not the latest")
        XCTAssertEqual(lateness.expected(at: Self.began.addingTimeInterval(60)), 1, accuracy: 0.001, "halved every 20 s")
        lateness.record(3_600, at: Self.began.addingTimeInterval(60), cap: 10)
        XCTAssertEqual(lateness.expected(at: Self.began.addingTimeInterval(60)), 10, accuracy: 0.001,
                       "a timer that fired an hour late (the app was suspended) counts as the cap")
    }

    func testAWakeAfterOneWhoseWaitCameBackLateAnswersEarlier() async throws {
        let phone = try await TestPhone(foreground: false)  // budget 20 s: work until 17 s
        phone.transport.setRule { request in
            request.method == "POST" || request.method == "GET" ? .delayed(3_600, .timeout) : nil
        }
        let client = phone.client
        // The first wake's settle is due at 17 s; the process gives it a thread back at 23 s.
        let firstPush = Self.push(phone, "run-1/a"), secondPush = Self.push(phone, "run-2/a")
        let first = Task { await client.handleRemoteNotification(payload: firstPush) }
        try await Self.waitUntil { !phone.transport.eventRequests.isEmpty }
        phone.clock.advance(by: 23)
        let firstOutcome = await first.value
        XCTAssertEqual(firstOutcome, .newData)
        // The next wake stops its work at 20 - 6 = 14 s: its answer does not wait for 17 s.
        let answered = Locked(false)
        let second = Task {
            let outcome = await client.handleRemoteNotification(payload: secondPush)
            answered.withLock { $0 = true }
            return outcome
        }
        try await Self.waitUntil { await phone.center.pendingRequests().contains { $0.id == "run-2/a" } }
        phone.clock.advance(by: 14.5)
        let inTime = try await Self.waitUntil { answered.withLock { $0 } }
        XCTAssertTrue(inTime, "the second wake answered at 14.5 s of its 20 (it waited for 17 s before)")
        phone.clock.advance(by: 3)
        let secondOutcome = await second.value
        XCTAssertEqual(secondOutcome, .newData)
    }

    private static func push(_ phone: TestPhone, _ id: String) -> [String: JSONValue] {
        let plan = phone.plan(id, in: 3_600)
        phone.transport.addPlan(plan)
        return Payloads.members(SilentPlanPayload(local: plan).jsonBytes)
    }

    /// Waits (up to 5 s of real time, a bound for a broken test, not a timing check) for `condition`.
    @discardableResult
    private static func waitUntil(_ condition: () async -> Bool) async throws -> Bool {
        let started = Date()
        while Date().timeIntervalSince(started) < 5 {
            if await condition() { return true }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        return false
    }

    func testAnSDKThatGotToThePushLateAnswersBeforeItsProcessWouldMakeItLate() async throws {
        let phone = try await TestPhone(foreground: false)  // budget 20 s: work until 17 s
        phone.transport.setRule { request in
            request.method == "POST" || request.method == "GET" ? .delayed(6, .timeout) : nil
        }
        let plan = phone.plan("run-1/a", in: 3_600)
        phone.transport.addPlan(plan)
        let payload = Payloads.members(SilentPlanPayload(local: plan).jsonBytes)
        // iOS handed the push over 2 s ago (on this phone's clock): each turn waits about 1 s,
        // so the work stops at 20 - 8 = 12 s, 10 s from now.
        let arrived = phone.clock.now.addingTimeInterval(-2)
        let client = phone.client
        let started = Date()
        let answer = Task { await client.handleRemoteNotification(payload: payload, receivedAt: arrived) }
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(started) < 5 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        XCTAssertFalse(phone.transport.eventRequests.isEmpty, "the acknowledgment is on its way")
        phone.clock.advance(by: 10.5)
        let outcome = await answer.value
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(outcome, .newData)
        XCTAssertLessThan(took, 5, "answered \(took) s after the call: at 12.5 s of iOS's 20, not when the requests gave up at 6 s")
        let book = await client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentConfirmed, false, "the acknowledgment did not get through")
    }
}
