import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// At most 64 pending notifications: the soonest are kept; a plan that does not fit is not
/// acknowledged; an acknowledged plan pushed out is parked, restored or lost (documented).
final class CapacityTests: XCTestCase {
    /// Schedules plans `p01`…`pNN` firing 1…N hours from now.
    private func fill(_ phone: TestPhone, count: Int = 64) async {
        for hour in 1...count {
            await phone.receivePlan(String(format: "p%02d", hour), in: TimeInterval(hour) * 3_600)
        }
    }

    private func acknowledgedIds(_ phone: TestPhone) -> [String] {
        phone.transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }
            .compactMap { $0.properties["localId"]?.stringValue }
    }

    func testLaterPlanBeyondTheLimitIsNotScheduledNorAcknowledged() async throws {
        let phone = try await TestPhone()
        await fill(phone)
        let outcome = await phone.receivePlan("late", in: 65 * 3_600)
        XCTAssertEqual(outcome, .noData)
        let count = await phone.center.pendingCount
        XCTAssertEqual(count, 64)
        XCTAssertFalse(acknowledgedIds(phone).contains("late"))
        XCTAssertEqual(acknowledgedIds(phone).count, 64)
        XCTAssertEqual(Set(phone.activity.rejections), [.noCapacity], "refused by the push, and again by the sync that followed it")
    }

    func testSoonerPlanEvictsTheLatestAndItsUnsentAcknowledgmentIsTakenBack() async throws {
        let phone = try await TestPhone()
        phone.network.setOnline(false)  // nothing acknowledged yet
        await fill(phone)
        let outcome = await phone.receivePlan("soon", in: 1_800)
        XCTAssertEqual(outcome, .newData)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending.count, 64)
        XCTAssertTrue(pending.contains("soon"))
        XCTAssertFalse(pending.contains("p64"))
        XCTAssertTrue(phone.activity.all.contains(.planEvicted(localId: "p64", messageId: "msg-p64", parked: false)))
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        XCTAssertFalse(acknowledgedIds(phone).contains("p64"), "the server never hears of p64, so its fallback covers it")
        XCTAssertTrue(acknowledgedIds(phone).contains("soon"))
        let book = await phone.client.planBook
        XCTAssertNil(book.records["p64"])
    }

    func testAcknowledgedPlanPushedOutIsParkedAndRestoredWhenASlotFrees() async throws {
        let phone = try await TestPhone()
        await fill(phone)  // online: all 64 acknowledged
        await phone.receivePlan("soon", in: 1_800)
        XCTAssertTrue(phone.activity.all.contains(.planEvicted(localId: "p64", messageId: "msg-p64", parked: true)))
        var book = await phone.client.planBook
        XCTAssertEqual(book.records["p64"]?.state, .parked)
        XCTAssertEqual(book.registry.eventNames, [], "no cancelOn names in these plans")

        // "soon" fires; at the next moment the SDK runs (here: a tracked event), p64 goes back.
        let shown = try await phone.advance(1_800)
        XCTAssertEqual(shown.map(\.id), ["soon"])
        try await phone.client.track("app.foreground")
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.contains("p64"))
        book = await phone.client.planBook
        XCTAssertEqual(book.records["p64"]?.state, .scheduled)
        XCTAssertTrue(phone.activity.all.contains(.planRestored(localId: "p64", messageId: "msg-p64")))
    }

    /// A phone that lets go of plans it acknowledged says so (`$local.released`, with its
    /// device), so the server's fallback shows them: nothing is lost silently.
    func testParkedPlansAreReleasedSoTheFallbackShowsThem() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        await fill(phone)
        for index in 1...2 {  // two sooner plans push p64 and p63 out
            await phone.receivePlan("soon-\(index)", in: 1_800)
        }
        let released = phone.transport.postedEvents.filter { $0.event == "$local.released" }
        XCTAssertEqual(released.compactMap { $0.properties["localId"]?.stringValue }.sorted(), ["p63", "p64"])
        XCTAssertEqual(Set(released.compactMap { $0.properties["device"]?.stringValue }), [TestPhone.deviceToken])
        XCTAssertEqual(released.first { $0.properties["localId"] == "p64" }?.properties["messageId"], "msg-p64")
        // The SDK does not run again until after they were due (the app stays suspended).
        phone.clock.advance(by: 65 * 3_600)
        await phone.center.fireDue()
        try await phone.client.track("app.foreground")
        let lost = phone.activity.all.filter { if case .planLost = $0 { return true } else { return false } }
        XCTAssertTrue(lost.isEmpty, "released plans are not lost: the server sent their fallback")
        let book = await phone.client.planBook
        XCTAssertTrue(book.records.isEmpty)
    }

    /// A released plan put back into a free slot is acknowledged again.
    func testARestoredPlanIsAcknowledgedAgain() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        await fill(phone)
        await phone.receivePlan("soon", in: 1_800)  // p64 is pushed out and released
        let acksBefore = acknowledgedIds(phone).filter { $0 == "p64" }.count
        XCTAssertEqual(acksBefore, 1)
        try await phone.advance(1_800)  // "soon" fires: a slot is free
        try await phone.client.track("app.foreground")
        try await phone.waitIdle()  // the new acknowledgment's flush
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.contains("p64"))
        XCTAssertEqual(acknowledgedIds(phone).filter { $0 == "p64" }.count, 2, "acknowledged again after the release")
        let order = phone.transport.postedEvents.filter { $0.properties["localId"] == "p64" }.map(\.event)
        XCTAssertEqual(order, ["$local.scheduled", "$local.released", "$local.scheduled"])
    }

    func testTheAppsOwnRequestsAreNeverDisplaced() async throws {
        let phone = try await TestPhone(capacity: 4) { $0.pendingNotificationLimit = 4 }
        for index in 1...2 {
            try await phone.center.add(NotificationRequest(id: "app-\(index)", title: "a", body: "b",
                                                           fireAt: phone.fireAt(in: TimeInterval(index) * 86_400)))
        }
        await phone.receivePlan("p1", in: 3_600)
        await phone.receivePlan("p2", in: 7_200)
        let rejected = await phone.receivePlan("p3", in: 10_800)
        XCTAssertEqual(rejected, .noData, "BuzzKit's budget is 4 − 2 app requests")
        let accepted = await phone.receivePlan("p0", in: 1_800)
        XCTAssertEqual(accepted, .newData)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["app-1", "app-2", "p0", "p1"])
    }

    func testConcurrentPlanPushesNeverOverfillTheCenter() async throws {
        let phone = try await TestPhone()
        let client = phone.client
        let payloads = (1...100).map { Payloads.plan("c\($0)", fireAt: phone.fireAt(in: TimeInterval($0) * 60)) }
        await withTaskGroup(of: Void.self) { group in
            for payload in payloads {
                group.addTask { _ = await client.handleRemoteNotification(payload: payload) }
            }
        }
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending.count, 64)
        XCTAssertEqual(Set(pending), Set((1...64).map { "c\($0)" }), "the soonest 64 are kept")
        let discarded = await phone.center.discarded
        XCTAssertTrue(discarded.isEmpty, "the SDK never relied on the system dropping requests")
        try await phone.waitIdle()
        let book = await phone.client.planBook
        let acknowledged = Set(acknowledgedIds(phone))
        for index in 1...64 {
            XCTAssertEqual(book.records["c\(index)"]?.acknowledgmentConfirmed, true, "c\(index)")
        }
        for index in 65...100 {
            // Either never acknowledged, or acknowledged and parked (the documented case).
            let record = book.records["c\(index)"]
            XCTAssertTrue(record?.state == .parked || (record == nil && !acknowledged.contains("c\(index)")), "c\(index)")
        }
    }

    /// In a wake's last seconds a sooner plan (here from a slow sync) must not push out a plan
    /// the server counts on: its release could not get out before the suspension, so the
    /// server would send no fallback and the parked plan would never be shown. The sooner plan
    /// is refused instead, unacknowledged, and the server's fallback shows it.
    func testAtTheEndOfAWakeASoonerPlanDoesNotDisplaceAnAcknowledgedOne() async throws {
        let phone = try await TestPhone(foreground: false)  // budget 20 s: releases until 12 s in
        await fill(phone)  // all 64 acknowledged
        let soon = phone.plan("soon", in: 1_800)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let list = String(decoding: try encoder.encode(phone.transport.listedPlans + [soon]), as: UTF8.self)
        phone.transport.setRule { request in
            request.method == "GET" ? .delayed(0.3, .status(200, body: "{\"plans\": \(list), \"asOf\": \"2026-11-30T09:00:00Z\"}")) : nil
        }
        phone.transport.clearRequests()
        let client = phone.client
        let wake = Task { await client.handleRemoteNotification(payload: Payloads.cancel("nothing-here")) }
        let began = Date()
        while phone.transport.syncRequests.isEmpty, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        phone.clock.advance(by: 15)  // the sync's answer lands 15 s into the wake
        _ = await wake.value
        try await phone.waitIdle()
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.contains("p64"), "the acknowledged plan keeps its slot")
        XCTAssertFalse(pending.contains("soon"))
        XCTAssertFalse(acknowledgedIds(phone).contains("soon"), "refused, so the server's fallback covers it")
        XCTAssertTrue(phone.transport.postedEvents.filter { $0.event == BuzzEvent.localReleased }.isEmpty)
        let book = await phone.client.planBook
        XCTAssertEqual(book.records["p64"]?.state, .scheduled)
    }

    func testPlannerNeverDisplacesAPinnedPlan() {
        let now = TestPhone.start
        let planner = CapacityPlanner(limit: 2)
        let pinnedLast = [CapacityPlanner.Entry(id: "a", instant: now + 10, ownedByBuzzKit: true),
                          CapacityPlanner.Entry(id: "b", instant: now + 20, ownedByBuzzKit: true, pinned: true)]
        XCTAssertEqual(planner.decide(instant: now + 5, pending: pinnedLast), .accept(evicting: ["a"]), "the soonest movable one goes")
        let allPinned = pinnedLast.map { CapacityPlanner.Entry(id: $0.id, instant: $0.instant, ownedByBuzzKit: true, pinned: true) }
        XCTAssertEqual(planner.decide(instant: now + 5, pending: allPinned), .reject)
    }

    func testPlannerKeepsTheSoonestAndLetsTheScheduledPlanWinATie() {
        let now = TestPhone.start
        let planner = CapacityPlanner(limit: 2)
        let pending = [CapacityPlanner.Entry(id: "a", instant: now + 10, ownedByBuzzKit: true),
                       CapacityPlanner.Entry(id: "b", instant: now + 20, ownedByBuzzKit: true)]
        XCTAssertEqual(planner.decide(instant: now + 5, pending: pending), .accept(evicting: ["b"]))
        XCTAssertEqual(planner.decide(instant: now + 20, pending: pending), .reject)
        XCTAssertEqual(planner.decide(instant: now + 30, pending: pending), .reject)
        XCTAssertEqual(planner.decide(instant: now + 30, pending: Array(pending.prefix(1))), .accept(evicting: []))
        let appOnly = [CapacityPlanner.Entry(id: "x", instant: now + 99, ownedByBuzzKit: false),
                       CapacityPlanner.Entry(id: "y", instant: now + 99, ownedByBuzzKit: false)]
        XCTAssertEqual(planner.decide(instant: now + 1, pending: appOnly), .reject)
    }
}
