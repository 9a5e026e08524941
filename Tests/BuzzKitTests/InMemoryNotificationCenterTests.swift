import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The in-memory center behaves like iOS: floating fire times in the current zone, 64 kept,
/// replacement by id, and it reports what it shows.
final class InMemoryNotificationCenterTests: XCTestCase {
    private func request(_ id: String, at instant: Date, zone: TimeZone = TestPhone.berlin) -> NotificationRequest {
        NotificationRequest(id: id, title: id, body: "", fireAt: FireAt(instant: instant, in: zone))
    }

    func testFiresInOrderAndReportsToTheObserver() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock)
        let seen = Locked<[String]>([])
        await center.setObserver { notification in seen.withLock { $0.append(notification.id) } }
        try await center.add(request("b", at: TestPhone.start + 20))
        try await center.add(request("a", at: TestPhone.start + 10))
        try await center.add(request("c", at: TestPhone.start + 30))
        clock.advance(by: 25)
        let shown = await center.fireDue()
        XCTAssertEqual(shown.map(\.id), ["a", "b"])
        XCTAssertEqual(seen.current, ["a", "b"])
        XCTAssertEqual(shown.first?.deliveredAt, TestPhone.start + 25)
        XCTAssertEqual(shown.first?.scheduledFor, TestPhone.start + 10)
        let delivered = await center.deliveredNotifications()
        XCTAssertEqual(delivered.map(\.id), ["a", "b"])
        let pending = await center.pendingRequests()
        XCTAssertEqual(pending.map(\.id), ["c"])
    }

    func testKeepsTheSoonestRequestsAndDiscardsTheRest() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock, capacity: 2)
        try await center.add(request("late", at: TestPhone.start + 300))
        try await center.add(request("mid", at: TestPhone.start + 200))
        try await center.add(request("soon", at: TestPhone.start + 100))
        let pending = await center.pendingRequests()
        XCTAssertEqual(pending.map(\.id), ["soon", "mid"])
        let discarded = await center.discarded
        XCTAssertEqual(discarded.map(\.id), ["late"])
    }

    func testSameIdReplacesAndPastRequestsNeverFire() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock)
        try await center.add(request("x", at: TestPhone.start + 100))
        try await center.add(NotificationRequest(id: "x", title: "new", body: "", fireAt: FireAt(instant: TestPhone.start + 50, in: TestPhone.berlin)))
        try await center.add(request("past", at: TestPhone.start - 1))
        let pending = await center.pendingRequests()
        XCTAssertEqual(pending.map(\.title), ["new"])
        clock.advance(by: 1_000)
        let shown = await center.fireDue()
        XCTAssertEqual(shown.map(\.title), ["new"])
    }

    func testRemoteAlertIsShownWithItsFallbackIdentifier() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock)
        let shown = await center.presentRemote(payload: Payloads.fallback(localId: "run-1/a", messageId: "m-1"))
        XCTAssertEqual(shown?.id, "run-1/a/fallback")
        XCTAssertEqual(shown?.title, "Leg day")
        XCTAssertEqual(shown?.message?.messageId, "m-1")
        let silent = await center.presentRemote(payload: Payloads.cancel("run-1"))
        XCTAssertNil(silent, "a silent push shows nothing")
        await center.removeDeliveredNotifications(withIdentifiers: ["run-1/a/fallback"])
        let delivered = await center.deliveredNotifications()
        XCTAssertTrue(delivered.isEmpty)
    }

    func testAutomaticFiringOnTheRealClock() async throws {
        let clock = SystemClock(timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock)
        await center.startAutomaticFiring(maximumSleep: 5)
        try await center.add(NotificationRequest(id: "soon", title: "", body: "", fireAt: FireAt(instant: Date().addingTimeInterval(2), in: TestPhone.berlin)))
        let deadline = Date().addingTimeInterval(5)
        var delivered: [DeliveredNotification] = []
        while delivered.isEmpty, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
            delivered = await center.deliveredNotifications()
        }
        await center.stopAutomaticFiring()
        XCTAssertEqual(delivered.map(\.id), ["soon"])
        let lateness = try XCTUnwrap(delivered.first.flatMap { note in note.scheduledFor.map { note.deliveredAt.timeIntervalSince($0) } })
        XCTAssertLessThan(lateness, 0.5, "woken for the new request, not after the 5 s maximum sleep")
    }
}
