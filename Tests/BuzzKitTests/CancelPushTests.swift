import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// `bk.cancel` removes pending BuzzKit requests whose id equals the cancel id or starts with it.
final class CancelPushTests: XCTestCase {
    func testExactIdRemovesOnlyThatRequest() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/a", in: 600)
        await phone.receivePlan("run-1/b", in: 600)
        let outcome = await phone.client.handleRemoteNotification(payload: Payloads.cancel("run-1/a"))
        XCTAssertEqual(outcome, .newData)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/b"])
    }

    func testRunIdRemovesEverythingTheRunScheduled() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/a", in: 600)
        await phone.receivePlan("run-1/b", in: 700)
        await phone.receivePlan("run-2/a", in: 800)
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("run-1"))
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-2/a"])
        XCTAssertTrue(phone.activity.all.contains(.notificationsCancelled(localIds: ["run-1/a", "run-1/b"], trigger: .cancelPush("run-1"))))
    }

    func testPrefixIsAPlainStringPrefixAsTheContractSays() async throws {
        // Documented: "run1" also matches "run10/…". Real run ids are UUIDs, so this does not
        // happen between real runs.
        let phone = try await TestPhone()
        await phone.receivePlan("run1/a", in: 600)
        await phone.receivePlan("run10/a", in: 600)
        await phone.receivePlan("run2/a", in: 600)
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("run1"))
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run2/a"])
    }

    func testTheAppsOwnRequestsAreNotTouched() async throws {
        let phone = try await TestPhone()
        try await phone.center.add(NotificationRequest(id: "run-1-reminder", title: "Mine", body: "App's own",
                                                       fireAt: phone.fireAt(in: 600)))
        await phone.receivePlan("run-1/a", in: 600)
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("run-1"))
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1-reminder"])
    }

    /// A cancel of another run is nothing to do; an empty id, which as a prefix would match
    /// every plan, is refused. Either way every plan stays.
    func testACancelMatchingNoPlanLeavesEveryPlan() async throws {
        for (id, expected) in [("run-9", PushOutcome.noData), ("", .failed)] {
            let phone = try await TestPhone()
            await phone.receivePlan("run-1/a", in: 600)
            let outcome = await phone.client.handleRemoteNotification(payload: Payloads.cancel(id))
            XCTAssertEqual(outcome, expected, "cancel \"\(id)\"")
            let pending = await phone.pendingIds()
            XCTAssertEqual(pending, ["run-1/a"], "cancel \"\(id)\"")
        }
    }

    func testPlanArrivingAfterItsRunWasCancelledIsNotScheduled() async throws {
        let phone = try await TestPhone()
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("run-1"))
        let outcome = await phone.receivePlan("run-1/a", in: 600)
        XCTAssertEqual(outcome, .noData)
        XCTAssertEqual(phone.activity.rejections, [.alreadyCancelled])
        let other = await phone.receivePlan("run-2/a", in: 600)
        XCTAssertEqual(other, .newData)
    }

    func testCancelWorksOfflineAndNothingIsShownLater() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/a", in: 600)
        phone.network.setOnline(false)
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("run-1"))
        let shown = try await phone.advance(700)
        XCTAssertTrue(shown.isEmpty)
    }
}
