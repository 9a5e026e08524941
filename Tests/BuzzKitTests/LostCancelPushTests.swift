import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A notification of a run that was cancelled never shows, even when the cancel push was
/// lost: the next sync finds that the server no longer lists the plan and removes it. And a
/// plan the person already cancelled on the phone (by doing what it reminds of) is not
/// brought back by a sync that still lists it because the server has not seen the event yet.
final class LostCancelPushTests: XCTestCase {
    func testAPlanTheServerNoLongerListsIsRemovedAndNeverFires() async throws {
        let phone = try await TestPhone(foreground: false)
        await phone.receivePlan("run-1/a", in: 3_600)
        await phone.receivePlan("run-2/a", in: 3_600)
        try await phone.advance(60)
        // run-1 is cancelled on the server; its bk.cancel push never arrives.
        phone.transport.setPlans(phone.transport.listedPlans.filter { $0.id != "run-1/a" })

        await phone.client.applicationDidBecomeActive()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-2/a"])
        XCTAssertTrue(phone.activity.all.contains(.plansSynced(added: [], removed: ["run-1/a"])))
        let book = await phone.client.planBook
        XCTAssertNil(book.records["run-1/a"])

        let shown = try await phone.advance(3_600)
        XCTAssertEqual(shown.map(\.id), ["run-2/a"])
    }

    func testTheLateCancelledPlanPushDoesNotBringItBack() async throws {
        let phone = try await TestPhone(foreground: false)
        let plan = phone.plan("run-1/a", in: 3_600)
        await phone.push(plan)
        try await phone.advance(60)
        await phone.client.networkDidBecomeAvailable()  // the server lists nothing: removed
        var pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)

        let again = await phone.push(plan)  // APNs redelivers the old plan push
        XCTAssertEqual(again, .noData)
        pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"], "no second acknowledgment")
        let shown = try await phone.advance(3_600)
        XCTAssertTrue(shown.isEmpty)
    }

    func testAPlanCancelledOnThePhoneStaysCancelledWhileTheServerStillListsIt() async throws {
        let phone = try await TestPhone(foreground: false)
        await phone.receivePlan("run-1/a", in: 3_600, cancelOn: ["workout.completed"])
        phone.network.setOnline(false)
        try await phone.client.track("workout.completed")
        var pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "removed at once, offline")

        // Back online the server still lists the plan (the event is only now on its way).
        phone.transport.setRule { $0.method == "POST" ? .status(503) : nil }
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        await phone.client.applicationDidBecomeActive()
        XCTAssertGreaterThanOrEqual(phone.transport.syncRequests.count, 3)
        pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "a sync listing it does not bring it back")
        XCTAssertEqual(phone.activity.scheduled, ["run-1/a"], "scheduled once, by the push")

        phone.transport.setRule(nil)
        let shown = try await phone.advance(3_600)
        XCTAssertTrue(shown.isEmpty)
        XCTAssertEqual(phone.acknowledgedIds.filter { $0 == "run-1/a" }.count, 1)
    }
}
