import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Issue 45, race 1 (`make bench`, never shown). A plan was held before a suspension because
/// its acknowledgment could not get out. The person opened the app, the acknowledgment went
/// out for the plan still held (to be put back once confirmed), and iOS suspended the app with
/// the answer in flight: the server counted it and sent no fallback, and the plan stayed out of
/// the notification center. Now a held plan goes back into the center before its
/// acknowledgment is sent, so an acknowledgment the server may count is for a pending plan.
final class HeldPlanPutBackTests: XCTestCase {
    func testAHeldPlanIsPendingBeforeItsAcknowledgmentGoesOutAndIsShownAfterASuspension() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 600, messageId: "m-1")
        var book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.state, .held)

        // Back online; the API answers slowly, so the app leaves the screen with it in flight.
        phone.network.setOnline(true)
        phone.transport.setRule { $0.method == "POST" ? .delayed(1.5, .status(202, body: #"{"accepted":1}"#)) : nil }
        let client = phone.client
        let opened = Task { await client.applicationDidBecomeActive() }
        let began = Date()
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"])
        let pendingWhenSent = await phone.pendingIds()
        XCTAssertEqual(pendingWhenSent, ["run-1/a"], "the acknowledgment in flight is for a plan in the center")

        let leaving = Task { await client.applicationDidEnterBackground() }
        phone.clock.advance(by: 30)  // the background time runs out with the acknowledgment in flight
        _ = await (opened.value, leaving.value)
        try await Task.sleep(nanoseconds: 1_800_000_000)  // the server counted it; the answer came back
        book = await client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentConfirmed, true)

        let shown = try await phone.advance(600)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"], "the server sends no fallback: the phone shows it")
    }

    /// With every slot taken by sooner requests, a held plan does not go back, and its
    /// acknowledgment is taken out of the queue: the server's fallback shows it.
    func testAHeldPlanWithoutASlotIsNotAcknowledged() async throws {
        let phone = try await TestPhone(capacity: 2, foreground: false) { $0.pendingNotificationLimit = 2 }
        phone.network.setOnline(false)
        await phone.receivePlan("run-9/a", in: 900, messageId: "m-9")
        phone.network.setOnline(true)
        try await phone.center.add(NotificationRequest(id: "app-1", title: "Stretch", body: "", sound: nil, userInfo: [:],
                                                        fireAt: phone.fireAt(in: 300)))
        try await phone.center.add(NotificationRequest(id: "app-2", title: "Water", body: "", sound: nil, userInfo: [:],
                                                        fireAt: phone.fireAt(in: 400)))
        await phone.client.applicationDidBecomeActive()
        try await phone.waitIdle()

        XCTAssertFalse(phone.acknowledgedIds.contains("run-9/a"))
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["app-1", "app-2"])
    }
}
