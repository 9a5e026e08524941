import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A suspended app cannot withdraw a notification when the server's fallback comes, so a plan
/// whose acknowledgment has not reached the server is taken out of the notification center
/// before the app is suspended (held). The person then sees it once: from the phone when the
/// acknowledgment gets through before its deadline, from the server's fallback otherwise.
final class NeverShownTwiceAfterSuspensionTests: XCTestCase {
    func testAnOfflinePushInTheBackgroundLeavesNothingPending() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.network.setOnline(false)
        let outcome = await phone.receivePlan("run-1/a", in: 600, messageId: "m-1")
        XCTAssertEqual(outcome, .newData)

        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "nothing left that could be shown beside the fallback")
        let book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.state, .held)
        XCTAssertTrue(phone.activity.all.contains(.plansHeld(localIds: ["run-1/a"])))
        let queued = await phone.client.queuedEvents
        XCTAssertEqual(queued.map(\.event), [BuzzEvent.localScheduled], "its acknowledgment waits for the network")
        let persisted = try phone.store.value(PlanBook.self, forKey: "buzzkit.plans")
        XCTAssertEqual(persisted?.records["run-1/a"]?.state, .held)
    }

    /// Two plans arrive together and their acknowledgments go out one a request: the first is
    /// in flight when the wake has to answer, the second still queued, so only the second is
    /// held. When the first request comes back, the queue must not go on: the second
    /// acknowledgment would have the server count on a plan that is not in the notification
    /// center (no fallback, never shown). It goes out at the next wake, which puts the plan back.
    func testAfterTheHoldNoAcknowledgmentOfAHeldPlanGoesOutBeforeTheNextWake() async throws {
        let phone = try await TestPhone(foreground: false) { $0.eventBatchSize = 1 }
        phone.transport.setRule { $0.method == "POST" ? .delayed(1.5, .status(202, body: "{\"accepted\":1}")) : nil }
        let client = phone.client
        let first = phone.plan("run-1/a", in: 600), second = phone.plan("run-2/a", in: 900)
        phone.transport.setPlans([first, second])
        let one = Task { await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: first).jsonBytes)) }
        let began = Date()
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        // The second arrives while the first acknowledgment is in flight.
        let two = Task { await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: second).jsonBytes)) }
        while Date().timeIntervalSince(began) < 5 {
            let wakes = await client.activeWakes, known = await client.planBook.records["run-2/a"] != nil
            if wakes == 2 && known { break }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        let wakes = Task { _ = await (one.value, two.value) }
        phone.clock.advance(by: 20)  // the budget runs out with the first acknowledgment in flight
        await wakes.value
        var book = await client.planBook
        XCTAssertEqual(book.records["run-2/a"]?.state, .held)
        try await Task.sleep(nanoseconds: 1_800_000_000)  // the first request comes back meanwhile
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"], "nothing more goes out while the app is being suspended")

        phone.transport.setRule(nil)
        await phone.receivePlan("run-3/a", in: 1_200)  // the next wake
        book = await client.planBook
        XCTAssertEqual(book.records["run-2/a"]?.acknowledgmentConfirmed, true)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a", "run-2/a", "run-3/a"], "acknowledged at the next wake, so back in the center")
    }

    func testConfirmedBeforeItIsDueThePlanComesBackAndFiresOnce() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 600)
        try await phone.advance(120)

        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        let book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.state, .scheduled)
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentConfirmed, true)
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"])

        try await phone.expectShownOnce(["run-1/a"], within: 480)
    }

    /// The connection drops for a moment during one push's wake and is back for the next
    /// push a second later: that wake sends what is queued (README: "The SDK handles the push,
    /// sends what is queued"), so both plans are acknowledged and shown by the phone rather
    /// than held for the server's fallback.
    func testThePushWakeAfterAFailedOneSendsTheQueuedAcknowledgments() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 600)
        phone.clock.advance(by: 1)  // the app is suspended: nothing runs in between
        phone.network.setOnline(true)
        await phone.receivePlan("run-2/a", in: 900)  // the next wake, online

        XCTAssertEqual(Set(phone.acknowledgedIds), ["run-1/a", "run-2/a"], "the wake sent nothing: a backoff from the last wake was pending")
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a", "run-2/a"])
    }

    func testPastItsDeadlineTheHeldPlanIsWithdrawnAndNeverAcknowledged() async throws {
        let phone = try await TestPhone(foreground: false)  // acknowledgmentDeadline 5 s
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        try await phone.advance(56)  // past the deadline, still offline
        // The deadline's timer resumes on its own task after the clock moves: wait for it (up to
        // 20 s of real time: a loaded CI machine once took more than 5).
        let withdrawn = ClientActivity.planWithdrawn(localId: "run-1/a", messageId: "m-1", acknowledgmentMayHaveArrived: false)
        let began = Date()
        while !phone.activity.all.contains(withdrawn), Date().timeIntervalSince(began) < 20 { try await Task.sleep(nanoseconds: 1_000_000) }

        XCTAssertTrue(phone.activity.all.contains(withdrawn))
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        let shown = try await phone.advance(60)
        XCTAssertTrue(shown.isEmpty, "the server's fallback shows it")
        XCTAssertFalse(phone.postedNames.contains(BuzzEvent.localScheduled))
        let book = await phone.client.planBook
        XCTAssertNil(book.records["run-1/a"])
    }

    /// The app stays suspended (nothing of it runs) until after the plan's deadline; the next
    /// wake has the network. An acknowledgment that only gets through after its deadline could
    /// reach the server while the phone no longer has time to show the plan, so it is never
    /// posted: the plan is withdrawn and the server's fallback shows it.
    func testWokenAfterItsDeadlineTheHeldPlanIsWithdrawnAndNeverAcknowledged() async throws {
        let phone = try await TestPhone(foreground: false)  // acknowledgmentDeadline 5 s
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        // 3 s before its moment, past its deadline
        try await wakeAgain(phone, after: 57) { phone.network.setOnline(true) }
        XCTAssertFalse(phone.postedNames.contains(BuzzEvent.localScheduled), "posted 3 s before the moment, past its 5 s deadline")
        XCTAssertTrue(phone.activity.all.contains(.planWithdrawn(localId: "run-1/a", messageId: "m-1", acknowledgmentMayHaveArrived: false)))
        let shown = try await phone.advance(10)
        XCTAssertTrue(shown.isEmpty, "the fallback shows it")
    }

    /// The acknowledgment's request was cut off by the suspension (it may have reached the
    /// server, which then counts on the phone and sends no fallback). Woken past the plan's
    /// deadline but before its moment, the SDK must not withdraw it and leave its showing to a
    /// release racing the moment: it sends the acknowledgment again (deduplicated) and keeps
    /// the plan, which fires once.
    func testWokenPastTheDeadlineAPlanWhoseAcknowledgmentMayHaveArrivedIsConfirmedAndShown() async throws {
        let phone = try await TestPhone(foreground: false)  // acknowledgmentDeadline 5 s
        phone.transport.setRule { $0.method == "POST" ? .timeout : nil }  // cut off: it may have arrived
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        var book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentUncertain, true)
        XCTAssertEqual(book.records["run-1/a"]?.state, .scheduled, "possibly counted by the server: not held")
        // 3 s before its moment, past its deadline
        try await wakeAgain(phone, after: 57) { phone.transport.setRule(nil) }
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"], "sent again")
        XCTAssertFalse(phone.activity.all.contains { if case .planWithdrawn = $0 { true } else { false } })
        book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentConfirmed, true)
        let shown = try await phone.advance(10)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"])
    }

    /// Same, but the app runs again just as the moment passes, before iOS showed the pending
    /// notification: it is left to show (the server most likely counts it), not withdrawn.
    func testAtItsMomentAPendingPlanWhoseAcknowledgmentMayHaveArrivedIsLeftToShow() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.transport.setRule { $0.method == "POST" ? .timeout : nil }
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        await phone.client.shutdown()
        phone.clock.advance(by: 60.1)  // the moment has just passed; iOS has not shown it yet
        phone.transport.setRule(nil)
        try await phone.restart(foreground: true)
        try await phone.waitIdle()
        XCTAssertFalse(phone.activity.all.contains { if case .planWithdrawn = $0 { true } else { false } })
        let shown = await phone.center.fireDue()
        XCTAssertEqual(shown.map(\.id), ["run-1/a"], "shown once, by the phone")
    }

    /// Same, woken only after the moment itself: posting the acknowledgment now would tell the
    /// server the phone showed a notification nobody saw.
    func testWokenAfterTheMomentTheHeldPlansAcknowledgmentIsNeverPosted() async throws {
        let phone = try await TestPhone(foreground: false)
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")
        await phone.client.shutdown()
        phone.clock.advance(by: 120)
        phone.network.setOnline(true)
        phone.transport.clearRequests()

        try await phone.restart(foreground: false)
        try await phone.waitIdle()
        XCTAssertFalse(phone.postedNames.contains(BuzzEvent.localScheduled),
                       "an acknowledgment for a plan 60 s past its moment was posted")
        let book = await phone.client.planBook
        XCTAssertNil(book.records["run-1/a"])
        let delivered = await phone.center.deliveredNotifications()
        XCTAssertTrue(delivered.isEmpty)
        XCTAssertFalse(phone.activity.all.contains { if case .planLost = $0 { true } else { false } },
                       "reported as a miss of the phone's own making")
    }

    /// iOS launches the app in the background for reasons of its own (a background fetch, the
    /// app's own silent push) and suspends it afterwards without any foreground or background
    /// notification. The launch syncs; a plan the sync added whose acknowledgment failed is not
    /// left pending either.
    func testAPlanAddedByTheSyncOfABackgroundLaunchIsNotLeftPendingUnconfirmed() async throws {
        let phone = try await TestPhone(start: false, foreground: false)
        phone.transport.addPlan(phone.plan("run-1/a", in: 600))
        phone.transport.setRule { $0.method == "POST" ? .unavailable : nil }  // the list arrives, the acknowledgment does not
        await phone.client.start()

        XCTAssertEqual(phone.activity.scheduled, ["run-1/a"])
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "left pending while suspended: shown together with the server's fallback")
    }

    func testInTheForegroundThePlanStaysPending() async throws {
        let phone = try await TestPhone(foreground: true)
        phone.network.setOnline(false)
        await phone.receivePlan("run-1/a", in: 600)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"], "the app runs and can still withdraw it at its deadline")
        let book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.state, .scheduled)
        XCTAssertFalse(phone.activity.all.contains { if case .plansHeld = $0 { true } else { false } })

        // Leaving the foreground while still offline holds it.
        await phone.client.applicationDidEnterBackground()
        let afterLeaving = await phone.pendingIds()
        XCTAssertTrue(afterLeaving.isEmpty)
        XCTAssertTrue(phone.activity.all.contains(.plansHeld(localIds: ["run-1/a"])))
    }

    func testAConfirmedPlanIsNotHeld() async throws {
        let phone = try await TestPhone(foreground: false)
        await phone.receivePlan("run-1/a", in: 600)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        XCTAssertFalse(phone.activity.all.contains { if case .plansHeld = $0 { true } else { false } })
    }

    /// The app is suspended and then ended by iOS (no timer runs), `seconds` pass, `restore`
    /// brings the network back, and the next wake runs until the SDK is idle.
    private func wakeAgain(_ phone: TestPhone, after seconds: TimeInterval, restore: () -> Void) async throws {
        await phone.client.shutdown()
        phone.clock.advance(by: seconds)
        restore()
        phone.transport.clearRequests()
        try await phone.restart(foreground: false)
        try await phone.waitIdle()
    }
}
