import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Buttons on BuzzKit's notifications (DESIGN §4c): the SDK registers their category beside the
/// app's own, a chosen button tracks `$push.action` and its event (a "Done" that cancels the
/// run), and a snooze shows the notification again once, that much later.
final class NotificationActionTests: XCTestCase {
    static let done = NotificationAction(id: "done", title: "Done", event: "workout.completed")
    static let snooze = NotificationAction(id: "snooze", title: "Snooze 10 min", snooze: "10m")
    static let category = "bk.0123456789abcdef"

    private func plan(_ phone: TestPhone, _ localId: String, in seconds: TimeInterval) -> LocalPlan {
        var plan = phone.plan(localId, in: seconds, cancelOn: ["workout.completed"])
        plan.presentation = NotificationPresentation(interruptionLevel: .timeSensitive, threadId: "workouts", category: Self.category)
        plan.actions = [Self.done, Self.snooze]
        return plan
    }

    /// Shows `plan` (pushed, then fired) and returns the notification as iOS would hand it to
    /// the response handler.
    private func shown(_ phone: TestPhone, _ plan: LocalPlan, after seconds: TimeInterval) async throws -> NotificationRequest {
        phone.transport.addPlan(plan)
        _ = await phone.push(plan)
        try await phone.waitIdle()
        let pending = await phone.center.pendingRequests()
        let request = try XCTUnwrap(pending.first { $0.id == plan.id })
        let fired = try await phone.advance(seconds)
        XCTAssertEqual(fired.map(\.id), [plan.id])
        return request
    }

    func testAPlanRegistersItsCategoryBesideTheAppsOwnAndCarriesItsPresentation() async throws {
        let phone = try await TestPhone()
        await phone.center.registerCategories([NotificationCategory(id: "app.reply", actions: [NotificationAction(id: "reply", title: "Reply")])])
        let plan = plan(phone, "run-1/nudge", in: 60)
        _ = await phone.push(plan)
        try await phone.waitIdle()
        let ids = await phone.center.registeredCategoryIds()
        XCTAssertEqual(ids, ["app.reply", Self.category], "the app's own category is kept")
        let registered = await phone.center.category(Self.category)
        XCTAssertEqual(registered?.actions, [Self.done, Self.snooze])
        let requests = await phone.center.pendingRequests()
        let request = try XCTUnwrap(requests.first)
        XCTAssertEqual(request.presentation.interruptionLevel, .timeSensitive)
        XCTAssertEqual(request.presentation.threadId, "workouts")
        XCTAssertEqual(request.presentation.category, Self.category)
    }

    func testDoneTracksTheActionAndTheEventAndCancelsTheRunsOtherPendingNotifications() async throws {
        let phone = try await TestPhone()
        let first = plan(phone, "run-1/nudge", in: 30)
        let later = phone.plan("run-1/follow-up", in: 3600, cancelOn: ["workout.completed"])
        phone.transport.addPlan(later)
        _ = await phone.push(later)
        let request = try await shown(phone, first, after: 31)
        await phone.client.handleNotificationAction("done", on: request)
        try await phone.waitIdle()
        let action = try XCTUnwrap(phone.transport.postedEvents.first { $0.event == BuzzEvent.pushAction })
        XCTAssertEqual(action.properties["actionId"], "done")
        XCTAssertEqual(action.properties["localId"], "run-1/nudge")
        XCTAssertEqual(action.properties["messageId"], .string(first.messageId))
        let completed = try XCTUnwrap(phone.transport.postedEvents.first { $0.event == "workout.completed" })
        XCTAssertEqual(completed.properties["localId"], "run-1/nudge")
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, [], "the run's later notification is cancelled on the phone")
        let shownLater = try await phone.advance(3600)
        XCTAssertEqual(shownLater.map(\.id), [])
    }

    func testSnoozeShowsTheSameNotificationAgainOnceTenMinutesLater() async throws {
        let phone = try await TestPhone()
        let request = try await shown(phone, plan(phone, "run-1/nudge", in: 30), after: 31)
        await phone.client.handleNotificationAction("snooze", on: request)
        try await phone.waitIdle()
        let snoozed = try XCTUnwrap(phone.transport.postedEvents.first { $0.event == BuzzEvent.localSnoozed })
        XCTAssertEqual(snoozed.properties["snoozeId"], "run-1/nudge/snooze/1")
        let early = try await phone.advance(599)
        XCTAssertFalse(early.contains { $0.id.hasPrefix("run-1/nudge/snooze/") }, "not before its time")
        let again = try await phone.advance(2)
        XCTAssertEqual(again.map(\.id), ["run-1/nudge/snooze/1"])
        XCTAssertEqual(again.first?.title, request.title)
        XCTAssertEqual(again.first?.userInfo, request.userInfo, "the same message: a tap on it is the same open")
        let later = try await phone.advance(3600)
        XCTAssertEqual(later.count, 0, "once")
        XCTAssertTrue(phone.activity.all.contains { if case .notificationAction(_, "snooze", nil, .some) = $0 { true } else { false } })
    }

    func testASnoozedNotificationIsCancelledByTheRunsEvent() async throws {
        let phone = try await TestPhone()
        let request = try await shown(phone, plan(phone, "run-1/nudge", in: 30), after: 31)
        await phone.client.handleNotificationAction("snooze", on: request)
        try await phone.waitIdle()
        try await phone.client.track("workout.completed")
        let after = try await phone.advance(700)
        XCTAssertEqual(after.count, 0, "done in the app: the snoozed reminder does not come back")
    }

    /// A fallback's buttons show even when its plan never reached the phone: sync's answer
    /// carries every category the subscriber's live plans use.
    func testSyncRegistersTheCategoriesItsAnswerCarries() async throws {
        let phone = try await TestPhone(start: false)
        let category = NotificationCategory(id: Self.category, actions: [Self.done])
        var writer = JSONWriter(capacity: 128)
        category.write(to: &writer)
        let body = "{\"plans\": [], \"categories\": [\(String(decoding: writer.bytes, as: UTF8.self))], \"asOf\": \"2026-11-30T09:00:00Z\"}"
        phone.transport.setRule { $0.method == "GET" && $0.url.path.hasSuffix("/plans") ? .status(200, body: body) : nil }
        await phone.client.start()
        try await phone.waitIdle()
        let registered = await phone.center.category(Self.category)
        XCTAssertEqual(registered, category)
        // A button on the fallback (a remote notification) is understood.
        let fallback = NotificationRequest(id: "apns-1", title: "Leg day", body: "6:00 with Maya.",
                                           presentation: NotificationPresentation(category: Self.category),
                                           userInfo: NotificationMessage(messageId: "m-1", localId: "run-9/nudge").userInfo,
                                           fireAt: phone.fireAt(in: 0))
        await phone.client.handleNotificationAction("done", on: fallback)
        try await phone.waitIdle()
        XCTAssertTrue(phone.postedNames.contains("workout.completed"))
    }
}

/// A button chosen on the lock screen during an outage: the SDK retries its events within the
/// wake's budget, so the Done reaches the server before iOS suspends the app.
final class NotificationActionRetryTests: XCTestCase {
    func testADoneRefusedOnceIsSentAgainBeforeTheWakeEnds() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.refuseEventPosts(1)
        let request = NotificationRequest(id: "run-1/nudge", title: "Leg day", body: "6:00 with Maya.",
                                          userInfo: NotificationMessage(messageId: "m-1", localId: "run-1/nudge").userInfo,
                                          fireAt: phone.fireAt(in: 0))
        let client = phone.client
        let (finished, advanced) = try await phone.whileTimePasses { await client.handleNotificationAction("done", on: request) }
        XCTAssertTrue(finished, "the wake ended")
        XCTAssertEqual(phone.postedNames.filter { $0 == BuzzEvent.pushAction }.count, 2, "sent again within the wake, after the 503")
        XCTAssertLessThan(advanced, 20, "before the wake's budget ran out")
        let queued = await client.queuedEvents
        XCTAssertEqual(queued.map(\.event), [], "nothing left waiting on the phone")
    }
}
