import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A plan whose silent push never arrived (APNs keeps one notification per app for an offline
/// phone, iOS throttles silent pushes) still reaches the phone: the SDK asks the server for the
/// subscriber's plans (`GET /v1/subscribers/{id}/plans`) at launch, on returning to the
/// foreground, on regaining the network and on every BuzzKit silent push. The person sees the
/// notification once, and the server hears one acknowledgment.
final class LostPlanPushTests: XCTestCase {
    private func count(_ id: String, in ids: [String]) -> Int { ids.filter { $0 == id }.count }

    func testThePhoneAsksForItsPlansAtLaunchForegroundNetworkAndEveryBuzzKitPush() async throws {
        let phone = try await TestPhone(foreground: false)
        XCTAssertEqual(phone.transport.syncRequests.count, 1, "launch")
        let request = try XCTUnwrap(phone.transport.syncRequests.first)
        XCTAssertEqual(request.url.absoluteString, "https://api.buzzkit.test/v1/subscribers/u_123/plans")
        XCTAssertEqual(request.header("Authorization"), "Bearer pk_tenant_secret")
        XCTAssertEqual(request.header("X-BuzzKit-Subscriber-Token"), TestPhone.token)

        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(phone.transport.syncRequests.count, 1, "the foreground within a minute of the launch's sync")
        await phone.client.applicationDidEnterBackground()
        _ = try await phone.advance(60)
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(phone.transport.syncRequests.count, 2, "returning to the foreground a minute later")
        await phone.client.networkDidBecomeAvailable()
        XCTAssertEqual(phone.transport.syncRequests.count, 3, "regaining the network")
        await phone.receivePlan("run-1/a", in: 3_600)
        XCTAssertEqual(phone.transport.syncRequests.count, 4, "a plan push")
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("run-9"))
        XCTAssertEqual(phone.transport.syncRequests.count, 5, "a cancel push")
        let other = await phone.client.handleRemoteNotification(payload: ["aps": ["content-available": 1], "orderId": "o-1"])
        XCTAssertEqual(other, .noData)
        XCTAssertEqual(phone.transport.syncRequests.count, 5, "somebody else's push is not a BuzzKit wake")
    }

    func testAPlanWhosePushWasLostIsScheduledAndAcknowledgedOnce() async throws {
        let phone = try await TestPhone(foreground: false)
        let lost = phone.plan("run-1/a", in: 3_600, messageId: "m-1")
        phone.transport.addPlan(lost)  // the server sent it; the phone never got the push

        _ = try await phone.advance(60)  // past the minute a foreground waits after the launch's sync
        await phone.client.applicationDidBecomeActive()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"])
        let ack = try XCTUnwrap(phone.transport.postedEvents.first { $0.event == BuzzEvent.localScheduled })
        XCTAssertEqual(ack.properties["messageId"], "m-1")
        XCTAssertEqual(ack.subscriberId, "u_123")
        XCTAssertTrue(phone.activity.all.contains(.plansSynced(added: ["run-1/a"], removed: [])))

        // More syncs and, finally, the late push itself: nothing new.
        await phone.client.networkDidBecomeAvailable()
        await phone.client.syncPlans()
        let late = await phone.push(lost)
        XCTAssertEqual(late, .noData)
        let stillPending = await phone.pendingIds()
        XCTAssertEqual(stillPending, ["run-1/a"])
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"], "one acknowledgment")

        let shown = try await phone.advance(3_600)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"], "shown once, at its time")
    }

    /// The person completes the workout while a sync is on its way back with the workout's
    /// plan (its push was lost or late): the tracked event found nothing to cancel on the
    /// phone, and the list, taken before the event, still has the plan. It must not be
    /// scheduled: the reminder would come after the person already did the workout.
    func testAPlanASyncBringsBackAfterItsCancellingEventWasTrackedIsNotScheduled() async throws {
        let phone = try await TestPhone(foreground: true)
        let plan = phone.plan("run-1/a", in: 3_600, cancelOn: ["workout.completed"])
        let other = phone.plan("run-2/a", in: 3_600, cancelOn: ["workout.moved"])
        phone.transport.setPlans([plan, other])
        let list = phone.transport.listedPlans
        let body = String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
        phone.transport.setRule { request in
            guard request.method == "GET", request.url.path.hasSuffix("/plans") else { return nil }
            return .delayed(0.5, .status(200, body: "{\"plans\": \(body), \"asOf\": \"2026-11-30T09:00:00Z\"}"))
        }
        let client = phone.client
        let sync = Task { await client.syncPlans() }
        try await Task.sleep(nanoseconds: 150_000_000)  // the request is out, its answer on its way
        phone.clock.advance(by: 1)
        try await phone.client.track("workout.completed")
        await sync.value
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-2/a"], "the completed workout's plan stays off the phone; the other is scheduled")
        XCTAssertFalse(phone.acknowledgedIds.contains("run-1/a"))
        // Its late push is kept out as well.
        let late = await phone.push(plan)
        XCTAssertEqual(late, .noData)
        let afterPush = await phone.pendingIds()
        XCTAssertEqual(afterPush, ["run-2/a"])
    }

    func testAPushAndTheSyncItTriggersNeverGiveTwoRequestsOrTwoAcknowledgments() async throws {
        let phone = try await TestPhone(foreground: false)
        let outcome = await phone.receivePlan("run-1/a", in: 3_600)  // also in the server's list
        XCTAssertEqual(outcome, .newData)
        XCTAssertEqual(phone.transport.syncRequests.count, 2, "the push synced")
        await phone.client.applicationDidBecomeActive()
        await phone.receivePlan("run-1/a", in: 3_600)  // APNs delivers it a second time

        let pending = await phone.center.pendingRequests()
        XCTAssertEqual(pending.map(\.id), ["run-1/a"])
        XCTAssertEqual(count("run-1/a", in: phone.acknowledgedIds), 1)
        XCTAssertEqual(phone.activity.scheduled, ["run-1/a"])
        try await phone.expectShownOnce(["run-1/a"], within: 3_600)
    }

    func testASyncRacingThePushOfTheSamePlanShowsItOnce() async throws {
        let phone = try await TestPhone(foreground: false)
        let plan = phone.plan("run-1/a", in: 3_600)
        phone.transport.addPlan(plan)
        // The foreground sync and the push arrive together.
        let client = phone.client
        let payload = Payloads.members(SilentPlanPayload(local: plan).jsonBytes)
        async let foreground: Void = client.applicationDidBecomeActive()
        async let pushed = client.handleRemoteNotification(payload: payload)
        _ = await (foreground, pushed)
        try await phone.waitIdle()

        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"])
        let shown = try await phone.advance(3_600)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"])
    }

    func testSyncKeepsTheSoonestPlansUnderThePendingLimit() async throws {
        let phone = try await TestPhone(capacity: 3, foreground: false) { $0.pendingNotificationLimit = 3 }
        // The server lists five plans (latest first here, to make the order matter).
        for hour in (1...5).reversed() {
            phone.transport.addPlan(phone.plan("p\(hour)", in: TimeInterval(hour) * 3_600))
        }
        _ = try await phone.advance(60)  // past the minute a foreground waits after the launch's sync
        await phone.client.applicationDidBecomeActive()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["p1", "p2", "p3"])
        XCTAssertEqual(Set(phone.acknowledgedIds), ["p1", "p2", "p3"], "the plans that did not fit are not acknowledged")
        XCTAssertEqual(phone.acknowledgedIds.count, 3)
        let discarded = await phone.center.discarded
        XCTAssertTrue(discarded.isEmpty, "the SDK never overfills the center")

        // Another sync changes nothing.
        await phone.client.networkDidBecomeAvailable()
        let after = await phone.pendingIds()
        XCTAssertEqual(after, ["p1", "p2", "p3"])
        XCTAssertEqual(phone.acknowledgedIds.count, 3)
    }

    func testAPlanDueWithinTheAcknowledgmentDeadlineIsLeftToTheServersFallback() async throws {
        let phone = try await TestPhone(foreground: false)  // acknowledgmentDeadline 5 s
        phone.transport.setPlans([phone.plan("run-1/soon", in: 4), phone.plan("run-2/later", in: 600)])
        _ = try await phone.advance(60)  // past the minute a foreground waits after the launch's sync
        await phone.client.applicationDidBecomeActive()

        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-2/later"])
        XCTAssertEqual(phone.acknowledgedIds, ["run-2/later"])
        let shown = try await phone.advance(10)
        XCTAssertTrue(shown.isEmpty, "the fallback shows run-1/soon, the phone does not")
    }

    func testAFailedSyncChangesNothingAndTheNextWakeRepairs() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.transport.addPlan(phone.plan("run-1/a", in: 3_600))
        phone.network.setOnline(false)
        _ = try await phone.advance(60)  // past the minute a foreground waits after the launch's sync
        await phone.client.applicationDidBecomeActive()
        var pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        phone.network.setOnline(true)
        phone.transport.setRule { $0.method == "GET" ? .status(503) : nil }
        await phone.client.networkDidBecomeAvailable()
        pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        phone.transport.setRule(nil)
        _ = try await phone.advance(60)  // past the minute a foreground waits after the launch's sync
        await phone.client.applicationDidBecomeActive()
        pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
    }
}
