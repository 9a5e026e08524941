import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Issue 45 (`make chaos`, offline-through-cancel): a plan pushed just before its run was
/// cancelled reached a phone that had been offline through the cancel; APNs had kept the plan
/// push and dropped the cancel push (it stores one per app, not always the newest). The
/// server answers that plan's acknowledgment with `"cancelled"`, and the phone drops the plan
/// as the cancel push would have.
final class CancelledRunAnswerTests: XCTestCase {
    func testAPlanWhoseAcknowledgmentIsAnsweredCancelledLeavesTheCenterForGood() async throws {
        let phone = try await TestPhone()
        phone.transport.setRule { $0.method == "POST" ? .status(202, body: "{\"accepted\":1,\"cancelled\":[\"run-1/a\"]}") : nil }
        await phone.receivePlan("run-1/a", in: 30, messageId: "m-1")
        try await phone.waitIdle()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, [], "dropped as the cancel push would have")
        XCTAssertTrue(phone.activity.all.contains(.notificationsCancelled(localIds: ["run-1/a"], trigger: .runCancelled("run-1/a"))))
        // The same plan pushed again (APNs, or a retry) is not scheduled again.
        await phone.receivePlan("run-1/a", in: 29, messageId: "m-1")
        try await phone.waitIdle()
        let again = await phone.pendingIds()
        XCTAssertEqual(again, [])
        let shown = try await phone.advance(60)
        XCTAssertEqual(shown.map(\.id), [], "never shown after the cancel")
    }

    /// The other plans of the batch are confirmed as usual.
    func testOnlyTheNamedPlanIsDropped() async throws {
        let phone = try await TestPhone()
        phone.transport.setRule { $0.method == "POST" ? .status(202, body: "{\"accepted\":2,\"cancelled\":[\"run-1/a\"]}") : nil }
        await phone.receivePlan("run-1/a", in: 30, messageId: "m-1")
        await phone.receivePlan("run-2/a", in: 30, messageId: "m-2")
        try await phone.waitIdle()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-2/a"])
        let shown = try await phone.advance(60)
        XCTAssertEqual(shown.map(\.id), ["run-2/a"])
    }
}
