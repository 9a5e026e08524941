import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The fleet all at once on 2 cores (issue 45): the API answered in 8 s; a plan put back into
/// the center 6 s before its moment had its acknowledgment still on its way, the busy phone
/// reached its last call after the moment, the server decided the fallback without it, and
/// both showed. A phone that has seen the API answer slowly keeps such a plan out of the
/// center until the answer, as it does for one arriving within
/// ``BuzzKitClient/confirmFirstWindow``: counted, it is shown; late, the fallback is.
final class SlowAnswersTests: XCTestCase {
    /// A phone on screen whose latest answer from the API took `seconds`: its clock moved that
    /// far while the acknowledgment of a plan due in an hour (`run-0/a`) was on its way.
    private func phone(lastAnswerTook seconds: TimeInterval) async throws -> TestPhone {
        let phone = try await TestPhone { $0.acknowledgmentDeadline = 0.4 }
        phone.transport.setRule { $0.method == "POST" ? .delayed(0.3, .status(202, body: #"{"accepted":1}"#)) : nil }
        let client = phone.client, plan = phone.plan("run-0/a", in: 3600, messageId: "m-0")
        phone.transport.setPlans([plan])
        let push = Task { _ = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: plan).jsonBytes)) }
        let began = Date()
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        phone.clock.advance(by: seconds)
        await push.value
        try await phone.waitIdle()
        return phone
    }

    func testAfterA4SecondAnswerAPlanDue5SecondsAheadWaitsOutsideTheCenterAndTheLateAnswerLeavesTheFallback() async throws {
        let phone = try await phone(lastAnswerTook: 4)
        phone.transport.setRule { $0.method == "POST" ? .status(202, body: #"{"accepted":1,"late":["run-1/a"]}"#) : nil }
        await phone.receivePlan("run-1/a", in: 5, messageId: "m-1")
        XCTAssertTrue(phone.activity.all.contains(.planAwaitingAnswer(localId: "run-1/a", messageId: "m-1")),
                      "due sooner than one and a half of the last answer's 4 s: it waits for the answer")
        XCTAssertTrue(phone.activity.all.contains(.acknowledgmentLate(localId: "run-1/a", messageId: "m-1", alreadyShown: false)))
        let shown = try await phone.advance(30)
        XCTAssertEqual(shown.map(\.id), [], "the server's fallback is the one shown")
    }

    func testAfterA4SecondAnswerACountedPlanIsShownOnceAtItsTime() async throws {
        let phone = try await phone(lastAnswerTook: 4)
        await phone.receivePlan("run-1/a", in: 5, messageId: "m-1")
        XCTAssertTrue(phone.activity.all.contains(.planAwaitingAnswer(localId: "run-1/a", messageId: "m-1")))
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-0/a", "run-1/a"], "counted before its moment: in the center for its own time")
        var shown = try await phone.advance(4)
        XCTAssertEqual(shown.map(\.id), [])
        shown = try await phone.advance(2)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"])
    }

    func testWithQuickAnswersAPlanDue5SecondsAheadGoesIntoTheCenterAtOnce() async throws {
        let phone = try await phone(lastAnswerTook: 0)
        phone.transport.setRule { $0.method == "POST" ? .delayed(0.3, .status(202, body: #"{"accepted":1}"#)) : nil }
        let client = phone.client, plan = phone.plan("run-1/a", in: 5, messageId: "m-1")
        phone.transport.addPlan(plan)
        let push = Task { _ = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: plan).jsonBytes)) }
        let began = Date()
        while !phone.acknowledgedIds.contains("run-1/a"), Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-0/a", "run-1/a"], "in the center while its acknowledgment is on its way")
        await push.value
    }

    /// A plan held before a suspension goes back when the app opens: outside the center when it
    /// is due sooner than the phone's answers take.
    func testAHeldPlanPutBackSoonBeforeItsMomentWaitsForTheAnswer() async throws {
        let phone = try await phone(lastAnswerTook: 4)
        let client = phone.client
        await client.applicationDidEnterBackground()
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 30, messageId: "m-1")
        var book = await client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.state, .held)
        _ = try await phone.advance(25)
        phone.network.setOnline(true)
        phone.transport.setRule { $0.method == "POST" ? .status(202, body: #"{"accepted":1,"late":["run-1/a"]}"#) : nil }
        await client.applicationDidBecomeActive()
        try await phone.waitIdle()
        XCTAssertTrue(phone.activity.all.contains(.planAwaitingAnswer(localId: "run-1/a", messageId: "m-1")),
                      "due in 5 s: put back outside the center")
        book = await client.planBook
        XCTAssertNil(book.records["run-1/a"], "answered late: forgotten")
        let shown = try await phone.advance(30)
        XCTAssertEqual(shown.map(\.id), [], "the fallback is the one shown")
    }
}
