import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Issue 45, race 6 (`make chaos`, two-devices: shown twice). A silent push woke the phone
/// 15.6 s before the moment, the plan was scheduled, and the acknowledgment's flush got `503`
/// while PostgreSQL restarted. The SDK counted the 503 as "may have arrived" and left the plan
/// in the notification center when iOS suspended the app; the server, which had recorded
/// nothing, sent the fallback at the moment, and the local notification fired too.
///
/// The API answers 503 only when nothing was recorded (a commit cut off answers 500), so a
/// plan whose acknowledgment got a 503 is held before the suspension like an offline one.
final class AcknowledgmentRefusedInOutageTests: XCTestCase {
    private static let storageUnavailable = RecordingTransport.Reply.status(
        503, headers: ["Retry-After": "1"],
        body: #"{"error":{"code":"storage_unavailable","message":"PostgreSQL did not answer; nothing was changed. Retry shortly."}}"#)

    func testA503ForTheAcknowledgmentLeavesNothingPendingAtTheSuspension() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.transport.setRule { $0.method == "POST" ? Self.storageUnavailable : nil }
        let outcome = await phone.receivePlan("run-1/a", in: 15.6, messageId: "m-1")
        XCTAssertEqual(outcome, .newData)

        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, [], "the server's fallback shows it; a pending copy would be a second")
        let book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.state, .held)
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentUncertain, false)

        // The outage lasts past the acknowledgment deadline: the phone shows nothing, the
        // fallback is the one notification.
        let shown = try await phone.advance(20)
        XCTAssertEqual(shown, [])
    }

    /// The server back before the deadline: the acknowledgment gets through at the next
    /// wake and the phone shows the plan itself, once.
    func testAfterTheOutageTheHeldPlanIsAcknowledgedAndShownOnce() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.transport.setRule { $0.method == "POST" ? Self.storageUnavailable : nil }
        await phone.receivePlan("run-1/a", in: 120, messageId: "m-1")
        try await phone.advance(10)
        phone.transport.setRule(nil)
        await phone.client.networkDidBecomeAvailable()

        let book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentConfirmed, true)
        let shown = try await phone.advance(120)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"])
    }

    /// A 500 may follow a change the server made (a commit cut off): the acknowledgment may
    /// be counted, so the plan stays in the center and the phone shows it.
    func testA500LeavesThePlanPendingSinceTheServerMayCountIt() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.transport.setRule {
            $0.method == "POST" ? .status(500, body: #"{"error":{"code":"outcome_unknown","message":"may or may not be recorded"}}"#) : nil
        }
        await phone.receivePlan("run-1/a", in: 15.6, messageId: "m-1")
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        let book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentUncertain, true)
    }
}
