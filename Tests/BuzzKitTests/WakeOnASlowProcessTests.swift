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
        let wake = WakeDeadline(began: Self.began, budget: 25, startedAt: Self.began.addingTimeInterval(0.01))
        XCTAssertEqual(wake.answerBy.timeIntervalSince(Self.began), 25, accuracy: 0.001)
        XCTAssertEqual(wake.workUntil.timeIntervalSince(Self.began), 22, accuracy: 0.001, "3 s kept for the hold")
    }

    func testAWakeThatWaitedToStartStopsItsWorkEarlierByWhatTheAnswerWillWait() {
        // 1.5 s to start: two turns of 0.75 s; the answer's eight turns may take 6 s.
        let wake = WakeDeadline(began: Self.began, budget: 25, startedAt: Self.began.addingTimeInterval(1.5))
        XCTAssertEqual(wake.answerBy.timeIntervalSince(Self.began), 25, accuracy: 0.001, "iOS's time does not change")
        XCTAssertEqual(wake.workUntil.timeIntervalSince(Self.began), 19, accuracy: 0.001)
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
