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
        for index in 0..<64 {
            try await phone.center.add(NotificationRequest(id: "own-\(index)", title: "Drink water", body: "A glass now.", sound: nil,
                                                            userInfo: [:], fireAt: phone.fireAt(in: Double(60 + index))))
        }
        let pending = await phone.pendingIds()
        XCTAssertFalse(pending.contains("run-1/a"), "iOS dropped the latest-firing request")
        await phone.client.applicationDidEnterBackground()
        try await phone.waitIdle()

        XCTAssertTrue(phone.postedNames.contains(BuzzEvent.localReleased), "the server must not count on it any more")
        book = await phone.client.planBook
        XCTAssertNil(book.records["run-1/a"])
    }
}
