import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// While the app is open, BuzzKit's own notifications (a planned local notification, a
/// fallback alert) are shown as a banner with sound and go to BuzzKit when tapped; the app's
/// own notifications are left to the app's delegate. Decided from the user info alone, tested
/// here on Linux the way the Apple layer calls it (through Foundation's `[AnyHashable: Any]`).
final class BuzzKitNotificationPresentationTests: XCTestCase {
    private let plan = LocalPlan(id: "run-1/a", messageId: "m-1",
                                 fireAt: FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0),
                                 title: "Leg day", body: "6:00 with Maya.", deepLink: "gym://workouts/legs",
                                 data: ["workoutId": "w1"], cancelOn: [])
    private let banner = ForegroundPresentation(banner: true, list: true, sound: true)

    /// The user info as iOS hands it back: through Foundation objects.
    private func viaFoundation(_ userInfo: [String: JSONValue]) throws -> [String: JSONValue] {
        let foundation: [AnyHashable: Any] = JSONValue.foundationObject(userInfo)
        return try JSONValue.members(userInfo: foundation)
    }

    func testAPlannedLocalNotificationIsBuzzKitsAndShownAsABanner() throws {
        let userInfo = try viaFoundation(NotificationRequest(plan: plan).userInfo)
        XCTAssertTrue(BuzzKitNotification.owns(userInfo: userInfo))
        XCTAssertEqual(BuzzKitNotification.foregroundPresentation(userInfo: userInfo), banner)
        XCTAssertEqual(OpenedNotification(userInfo: userInfo)?.message.messageId, "m-1")
    }

    func testAFallbackAlertIsBuzzKitsAndShownAsABanner() throws {
        let userInfo = try viaFoundation(Payloads.fallback(localId: "run-1/a", messageId: "m-1"))
        XCTAssertTrue(BuzzKitNotification.owns(userInfo: userInfo))
        XCTAssertEqual(BuzzKitNotification.foregroundPresentation(userInfo: userInfo), banner)
    }

    func testSilentPlanAndCancelPushesAreBuzzKits() throws {
        XCTAssertTrue(BuzzKitNotification.owns(userInfo: try viaFoundation(Payloads.members(SilentPlanPayload(local: plan).jsonBytes))))
        XCTAssertTrue(BuzzKitNotification.owns(userInfo: try viaFoundation(Payloads.cancel("run-1"))))
    }

    func testTheAppsOwnNotificationsAreLeftToTheApp() throws {
        let own: [[String: JSONValue]] = [
            ["aps": ["alert": ["title": "Your order", "body": "It ships today."]], "orderId": "o-1"],
            ["aps": ["alert": "Hello"]],
            ["orderId": "o-1"],
            [:],
            ["bk": ["localId": "run-1/a"]],  // no messageId: not a BuzzKit message
            ["bk": "m-1"],
        ]
        for userInfo in own {
            XCTAssertFalse(BuzzKitNotification.owns(userInfo: try viaFoundation(userInfo)), "\(userInfo)")
            XCTAssertNil(BuzzKitNotification.foregroundPresentation(userInfo: try viaFoundation(userInfo)), "\(userInfo)")
        }
    }
}
