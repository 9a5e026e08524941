import AppleModelCore
import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import UIKit
import UserNotifications
import XCTest

/// The SDK's Apple layer itself (the app delegate hook, the notification delegate, the center
/// scheduler, the lifecycle observer) on the Apple model, with automatic push handling: an app
/// that only calls `configure` gets its plans shown, its taps tracked, and keeps its own pushes.
@MainActor
final class AutomaticPushHandlingTests: XCTestCase {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    func testAPlanFromASilentPushIsShownOnceAtItsWallClockAndItsTapIsTracked() async throws {
        let phone = ModelPhone(zone: Self.berlin)
        phone.launch(foreground: false)
        let registered = await phone.server.wait("device registration") { server in
            server.received.contains { $0.method != "GET" && $0.path.contains("/devices") && $0.body.contains(ModelPhone.deviceTokenHex) }
        }
        XCTAssertTrue(registered, "the token iOS gave the app delegate reached the server through the hook: \(phone.server.received.map(\.path))")

        let plan = ModelPhone.plan("run-1:leg-day", in: 3, zone: Self.berlin)
        let answer = await phone.silentPush(plan)
        // `.newData`, or `.noData` when the launch's sync listed the plan first: answered either way.
        XCTAssertNotNil(answer, "iOS got an answer within its 30 s")
        XCTAssertTrue(phone.appDelegate.ownPushes.isEmpty, "BuzzKit's push went to BuzzKit through the hook, not to the app")
        let pending = await phone.center.pendingNotificationRequests()
        XCTAssertEqual(pending.count, 1)
        XCTAssertTrue(pending.first?.trigger is UNCalendarNotificationTrigger, "a floating calendar trigger")
        let acknowledged = await phone.server.wait("acknowledgment") { $0.eventNames.contains("$local.scheduled") }
        XCTAssertTrue(acknowledged, "the plan was acknowledged: \(phone.server.eventNames)")

        let fireAt = plan.local.fireAt.instant(in: Self.berlin)
        let early = await phone.deliver(at: fireAt.addingTimeInterval(-1))
        XCTAssertTrue(early.isEmpty, "nothing a second before the wall clock")
        let shown = await phone.deliver(at: fireAt)
        XCTAssertEqual(shown.filter(\.shown).count, 1, "shown once")
        XCTAssertEqual(shown.first?.notification.request.content.title, "Leg day")
        let afterwards = await phone.deliver(at: fireAt.addingTimeInterval(1))
        XCTAssertTrue(afterwards.isEmpty, "not again")

        let identifier = try XCTUnwrap(shown.first?.notification.request.identifier)
        let answered = await phone.tap(identifier)
        XCTAssertTrue(answered, "the forwarder called the tap's completion handler")
        let opened = await phone.server.wait("open") { $0.eventNames.contains("$push.opened") }
        XCTAssertTrue(opened, "the tap was tracked: \(phone.server.eventNames)")
        XCTAssertEqual(phone.device.violations, [])
    }

    func testTheAppKeepsItsOwnPushesAndItsTokenCallback() async throws {
        let phone = ModelPhone(zone: Self.berlin)
        phone.launch(foreground: false)
        let own = await phone.application.modelDeliverSilentPush(userInfo: ["aps": ["content-available": 1], "chat": "new message"])
        XCTAssertEqual(own, .newData, "the app's own push reached the app's own callback, whose answer iOS got")
        XCTAssertEqual(phone.appDelegate.ownPushes.count, 1)

        let buzz = await phone.silentPush(ModelPhone.plan("run-2:leg-day", in: 60, zone: Self.berlin))
        XCTAssertNotNil(buzz)
        XCTAssertEqual(phone.appDelegate.ownPushes.count, 1, "BuzzKit's push is BuzzKit's alone")
        let pending = await phone.center.pendingNotificationRequests()
        XCTAssertEqual(pending.map(\.identifier), ["run-2:leg-day"])
        try await Task.sleep(nanoseconds: 100_000_000)
        XCTAssertFalse(phone.appDelegate.tokens.isEmpty, "the app's own token callback still runs")
        XCTAssertEqual(Set(phone.appDelegate.tokens), [ModelPhone.deviceToken])
        XCTAssertEqual(phone.device.violations, [])
    }

    /// iOS calls the delegate from the main run loop, not from inside a task: the work an app
    /// starts for a push runs at the main thread's priority, whoever handed the push over (the
    /// simulator's pushes come from a low task; a wake below the phones' other work waited for
    /// all of it).
    func testTheWorkAnAppStartsForAPushRunsAtTheMainThreadsPriority() async throws {
        let phone = ModelPhone(zone: Self.berlin)
        phone.launch(foreground: false)
        let application = phone.application
        let deliver: @MainActor @Sendable () async -> Void = {
            _ = await application.modelDeliverSilentPush(userInfo: ["aps": ["content-available": 1], "chat": "new message"])
        }
        // Not awaited (awaiting it would raise its priority to this test's).
        Task.detached(priority: .low) { await deliver() }
        let deadline = Date().addingTimeInterval(5)
        while phone.appDelegate.ownPushes.isEmpty && Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(phone.appDelegate.ownPushPriorities, [.high], "called from the main run loop, as iOS does")
    }

    func testAFallbackInTheForegroundIsShownAndRemovesItsPendingCopy() async throws {
        let phone = ModelPhone(zone: Self.berlin)
        phone.launch(foreground: true)
        let plan = ModelPhone.plan("run-3:leg-day", in: 60, zone: Self.berlin)
        _ = await phone.silentPush(plan)
        let before = await phone.center.pendingNotificationRequests()
        XCTAssertEqual(before.count, 1)

        let fallback = AlertPayload(title: "Leg day", body: "6:00 with Maya.", messageId: "msg-fallback", localId: plan.local.id,
                                    deepLink: "gym://workouts/legs", data: ["workoutId": "w1"])
        let shown = await phone.center.modelDeliverRemote(identifier: "apns-1", title: "Leg day", body: "6:00 with Maya.",
                                                          userInfo: ModelPhone.userInfo(fallback))
        XCTAssertTrue(shown.shown, "the notification delegate asked iOS for a banner")
        XCTAssertTrue(shown.inForeground)
        let after = await phone.center.pendingNotificationRequests()
        XCTAssertEqual(after.count, 0, "the local copy will not show a second time")
        XCTAssertEqual(phone.device.violations, [])
    }

    func testAPlanForAWallClockFollowsThePersonToANewZone() async throws {
        let phone = ModelPhone(zone: Self.newYork)
        phone.launch(foreground: false)
        // Berlin's wall clock 3 s from now: six hours away while the phone is in New York.
        let plan = ModelPhone.plan("run-4:leg-day", in: 3, zone: Self.berlin)
        _ = await phone.silentPush(plan)
        let pending = await phone.center.pendingNotificationRequests()
        XCTAssertEqual(pending.count, 1)

        phone.clock.setTimeZone(Self.berlin)
        phone.application.modelTimeZoneDidChange()
        let fireAt = plan.local.fireAt.instant(in: Self.berlin)
        let shown = await phone.deliver(at: fireAt)
        XCTAssertEqual(shown.filter(\.shown).count, 1, "shown at the wall clock where the person is now")
        let later = await phone.deliver(at: fireAt.addingTimeInterval(1))
        XCTAssertTrue(later.isEmpty)
        XCTAssertEqual(phone.device.violations, [])
    }
}
