import AppleModelCore
import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import UIKit
import UserNotifications
import XCTest

/// Buttons through the SDK's Apple layer on the model: the scheduler registers the plan's
/// category beside the app's own (iOS shows a notification's buttons only for a registered
/// category), sets the presentation on the content, and the notification delegate hands a
/// chosen button to the SDK, which tracks it and its event.
@MainActor
final class NotificationButtonTests: XCTestCase {
    func testDoneOnTheLockScreenIsTrackedWithItsEventAndTheAppsCategoryIsKept() async throws {
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let phone = ModelPhone(zone: zone)
        let own = UNNotificationCategory(identifier: "app.reply", actions: [UNNotificationAction(identifier: "reply", title: "Reply")],
                                         intentIdentifiers: [])
        phone.center.setNotificationCategories([own])
        phone.launch(foreground: false)
        var payload = ModelPhone.plan("run-1/nudge", in: 3, zone: zone)
        let done = NotificationAction(id: "done", title: "Done", event: "workout.completed")
        payload.local.actions = [done, NotificationAction(id: "later", title: "Later", snooze: "10m")]
        payload.local.presentation = NotificationPresentation(interruptionLevel: .timeSensitive, threadId: "workouts",
                                                              category: "bk.00000000000000aa")
        _ = await phone.silentPush(payload)
        let categories = await phone.center.notificationCategories()
        XCTAssertEqual(Set(categories.map(\.identifier)), ["app.reply", "bk.00000000000000aa"], "the app's own category is kept")
        let pending = await phone.center.pendingNotificationRequests()
        let content = try XCTUnwrap(pending.first?.content)
        XCTAssertEqual(content.interruptionLevel, .timeSensitive)
        XCTAssertEqual(content.threadIdentifier, "workouts")
        XCTAssertEqual(content.categoryIdentifier, "bk.00000000000000aa")

        let shown = await phone.deliver(at: payload.local.fireAt.instant(in: zone))
        let identifier = try XCTUnwrap(shown.first?.notification.request.identifier)
        let notAButton = await phone.choose("share", on: identifier)
        XCTAssertFalse(notAButton, "iOS shows only the category's buttons")
        let answered = await phone.choose("done", on: identifier)
        XCTAssertTrue(answered, "the delegate called the completion handler")
        let tracked = await phone.server.wait("the button and its event") {
            $0.eventNames.contains("$push.action") && $0.eventNames.contains("workout.completed")
        }
        XCTAssertTrue(tracked, "\(phone.server.eventNames)")
        XCTAssertFalse(phone.server.eventNames.contains("$push.opened"), "a button is not an open")
        XCTAssertEqual(phone.device.violations, [])
    }

    /// A fallback as the server writes it shows with its presentation and buttons (iOS reads
    /// them from `aps`); a key iOS could not read is a broken rule.
    func testAFallbacksApsIsReadAsAppleDocumentsIt() async throws {
        let device = ModelDevice(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        let center = UNUserNotificationCenter(modelDevice: device)
        center.setNotificationCategories([UNNotificationCategory(identifier: "bk.00000000000000aa",
                                                                 actions: [UNNotificationAction(identifier: "done", title: "Done")],
                                                                 intentIdentifiers: [])])
        let alert = AlertPayload(title: "Leg day", body: "6:00 with Maya.",
                                 presentation: NotificationPresentation(interruptionLevel: .timeSensitive, sound: "chime.caf", threadId: "workouts",
                                                                        badge: 2, category: "bk.00000000000000aa"),
                                 messageId: "m-1", localId: "run-1/nudge")
        let shown = await center.modelDeliverRemote(identifier: "run-1/nudge/fallback", title: alert.title, body: alert.body,
                                                    userInfo: ModelPhone.userInfo(alert))
        let content = shown.notification.request.content
        XCTAssertEqual(content.interruptionLevel, .timeSensitive)
        XCTAssertEqual(content.threadIdentifier, "workouts")
        XCTAssertEqual(content.badge, 2)
        XCTAssertEqual(content.categoryIdentifier, "bk.00000000000000aa")
        XCTAssertEqual(center.modelActions(forCategory: content.categoryIdentifier).map(\.identifier), ["done"], "its buttons show")
        XCTAssertEqual(device.violations, [])

        var wrong = ModelPhone.userInfo(alert)
        wrong["aps"] = ["alert": ["title": "x", "body": "y"], "interruption-level": "timeSensitive", "badge": "2"]
        _ = await center.modelDeliverRemote(identifier: "x", title: "x", body: "y", userInfo: wrong)
        XCTAssertEqual(device.violations.count, 2, "the engine's spelling is not APNs' and a badge is a number: \(device.violations)")
    }
}
