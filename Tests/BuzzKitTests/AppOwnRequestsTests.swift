import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Issue 45, race 5: the app schedules its own reminders beside BuzzKit's. Past iOS's 64
/// pending requests the latest-firing are dropped silently, BuzzKit's acknowledged plan among
/// them. The SDK must notice before iOS suspends the app and let go of the plan
/// (`$local.released`), so the server's fallback shows it; otherwise the server counts on a
/// plan no longer on the phone, and nobody sees it.
final class AppOwnRequestsTests: XCTestCase {
    func testAPlanTheAppsOwnRemindersPushOutIsReleasedAsTheAppLeaves() async throws {
        let phone = try await TestPhone(foreground: false)
        await phone.receivePlan("run-1/a", in: 600, messageId: "m-1")
        var book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentConfirmed, true)

        await phone.client.applicationDidBecomeActive()
        try await addOwnReminders(phone)
        let pending = await phone.pendingIds()
        XCTAssertFalse(pending.contains("run-1/a"), "iOS dropped the latest-firing request")
        await phone.client.applicationDidEnterBackground()
        try await phone.waitIdle()

        XCTAssertTrue(phone.postedNames.contains(BuzzEvent.localReleased), "the server must not count on it any more")
        book = await phone.client.planBook
        XCTAssertNil(book.records["run-1/a"])
    }

    /// The release is refused once (a database restart behind the API): it is sent again
    /// before iOS suspends the app, or the server keeps counting on the dropped plan
    /// (`make chaos` found one such phone that never showed its reminder).
    func testAReleaseRefusedAsTheAppLeavesIsSentAgainBeforeItIsSuspended() async throws {
        let phone = try await TestPhone(foreground: false)
        await phone.receivePlan("run-1/a", in: 600, messageId: "m-1")
        await phone.client.applicationDidBecomeActive()
        try await addOwnReminders(phone)
        phone.refuseEventPosts(1)
        let client = phone.client
        let (finished, advanced) = try await phone.whileTimePasses { await client.applicationDidEnterBackground() }
        XCTAssertTrue(finished, "the app's background time ended")
        XCTAssertEqual(phone.postedNames.filter { $0 == BuzzEvent.localReleased }.count, 2, "sent again after the 503")
        XCTAssertLessThan(advanced, 25, "within the background budget")
        let queued = await client.queuedEvents
        XCTAssertEqual(queued.map(\.event), [], "nothing left waiting on the suspended phone")
    }

    /// The app's own 64 reminders, all due before BuzzKit's plan: iOS drops the plan.
    private func addOwnReminders(_ phone: TestPhone) async throws {
        for index in 0..<64 {
            try await phone.center.add(NotificationRequest(id: "own-\(index)", title: "Drink water", body: "A glass now.", sound: nil,
                                                            userInfo: [:], fireAt: phone.fireAt(in: Double(60 + index))))
        }
    }
}
