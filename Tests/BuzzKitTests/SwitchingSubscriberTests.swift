import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Two people share a phone: when B signs in after A, nothing of A is shown to B, the device
/// is removed from A and registered for B. And a subscriber's short-lived token is fetched
/// again from the app shortly before it expires, so requests keep being accepted.
final class SwitchingSubscriberTests: XCTestCase {
    /// A phone in the background on which A signed in, then B.
    private func switchedFromAToB() async throws -> TestPhone {
        let phone = try await TestPhone(subscriberId: nil, foreground: false) { $0.deviceToken = TestPhone.deviceToken }
        try await phone.client.login(subscriberId: "u_A", subscriberToken: .fixed(TestPhone.token))
        try await phone.client.login(subscriberId: "u_B", subscriberToken: .fixed(TestPhone.token))
        return phone
    }

    private static func token(expiringAt expiry: Date, _ fill: String) -> String {
        "v1.\(Int(expiry.timeIntervalSince1970)).\(String(repeating: fill, count: 32))"
    }

    func testSigningInAsBAfterAShowsNothingOfAAndMovesTheDevice() async throws {
        let phone = try await TestPhone(subscriberId: nil) { $0.deviceToken = TestPhone.deviceToken }
        let expiry = TestPhone.start.addingTimeInterval(86_400)
        let tokenA = Self.token(expiringAt: expiry, "aa"), tokenB = Self.token(expiringAt: expiry, "bb")
        try await phone.client.login(subscriberId: "u_A", subscriberToken: .fixed(tokenA))
        await phone.receivePlan("run-a0/x", in: 30)
        try await phone.advance(30)
        await phone.receivePlan("run-a1/x", in: 3_600, cancelOn: ["a.done"])
        let shownForA = await phone.center.deliveredNotifications()
        XCTAssertEqual(shownForA.map(\.id), ["run-a0/x"])
        phone.transport.setPlans([])  // the server lists nothing for B
        phone.transport.clearRequests()

        try await phone.client.login(subscriberId: "u_B", subscriberToken: .fixed(tokenB))
        let subscriber = await phone.client.subscriberId
        XCTAssertEqual(subscriber, "u_B")
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        let delivered = await phone.center.deliveredNotifications()
        XCTAssertTrue(delivered.isEmpty, "A's shown notification left the list")
        let book = await phone.client.planBook
        XCTAssertEqual(book.registry.eventNames, [])

        let delete = try XCTUnwrap(phone.transport.deleteRequests.first)
        XCTAssertEqual(delete.url.path, "/v1/subscribers/u_A/devices/\(TestPhone.deviceToken)")
        XCTAssertEqual(delete.header("X-BuzzKit-Subscriber-Token"), tokenA)
        let registrations = phone.transport.registrationRequests
        XCTAssertEqual(registrations.map(\.url.path), ["/v1/subscribers/u_B/devices"])
        XCTAssertEqual(registrations.first?.header("X-BuzzKit-Subscriber-Token"), tokenB)
        XCTAssertEqual(RecordingTransport.stringBody(registrations.first)["token"], TestPhone.deviceToken)
        XCTAssertEqual(phone.transport.syncRequests.map(\.url.path), ["/v1/subscribers/u_B/plans"])
        let registered = await phone.client.registeredDevice
        XCTAssertEqual(registered?.token, TestPhone.deviceToken)

        let shown = try await phone.advance(3_600)
        XCTAssertTrue(shown.isEmpty, "A's plan never shows for B")
        try await phone.client.track("a.done")
        await phone.client.flush()
        XCTAssertEqual(phone.postedNames, ["a.done"])
        XCTAssertEqual(phone.transport.postedEvents.first?.subscriberId, "u_B")
    }

    /// A push of A's plan still on its way when B signs in is not shown to B: the next sync
    /// (on a real clock, the one of that same wake) does not list it for B, so it is removed
    /// before it can fire, although its moment is ahead.
    func testALatePushOfTheFormerSubscribersPlanIsNotShownToTheNextOne() async throws {
        let phone = try await switchedFromAToB()
        phone.transport.setPlans([])  // B has no plans; the list is as of the phone's start
        phone.clock.advance(by: 1)
        await phone.client.handleRemoteNotification(payload: Payloads.plan("run-a9/x", messageId: "m-a9", fireAt: phone.fireAt(in: 30)))
        phone.clock.advance(by: 0.001)  // the sync's request goes out after the plan arrived
        await phone.client.syncPlans()
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "not listed for B: removed")
        let shown = try await phone.advance(60)
        XCTAssertTrue(shown.isEmpty)
    }

    /// While the server has not taken the device from A (B's registration fails, say during
    /// a database restart), it still sends A's plans to this phone: B must not be shown them.
    /// Once the registration gets through, B's own plans come with the sync that follows.
    func testPlanPushesAreRefusedUntilTheServerHasMovedTheDeviceToB() async throws {
        let phone = try await TestPhone(subscriberId: nil, foreground: false) { $0.deviceToken = TestPhone.deviceToken }
        try await phone.client.login(subscriberId: "u_A", subscriberToken: .fixed(TestPhone.token))
        phone.transport.setRule { $0.method == "PUT" || $0.method == "DELETE" ? .status(503) : nil }
        try await phone.client.login(subscriberId: "u_B", subscriberToken: .fixed(TestPhone.token))
        phone.transport.clearRequests()

        let outcome = await phone.push(phone.plan("run-a7/x", in: 600))
        XCTAssertEqual(outcome, .noData)
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "A's plan is not scheduled for B")
        XCTAssertTrue(phone.acknowledgedIds.isEmpty, "nor acknowledged by B")

        phone.transport.setRule(nil)
        phone.transport.setPlans([phone.plan("run-b7/x", in: 900)])
        try await phone.advance(120)  // the registration's retry gets through
        XCTAssertEqual(phone.transport.registrationRequests.last?.url.path, "/v1/subscribers/u_B/devices")
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("nothing"))  // the next wake
        let after = await phone.pendingIds()
        XCTAssertEqual(after, ["run-b7/x"], "B's plan came with the sync after the device moved")
        XCTAssertEqual(phone.acknowledgedIds, ["run-b7/x"])
        let shown = try await phone.advance(900)
        XCTAssertEqual(shown.map(\.id), ["run-b7/x"])
    }

    /// B signs in while the API is briefly unavailable (a database restart) and leaves the
    /// app a moment later: the registration is retried within the background time iOS grants,
    /// so B's plans and fallbacks reach this phone without B opening the app again.
    func testARegistrationThatFailedAtSignInIsRetriedBeforeTheAppIsSuspended() async throws {
        let phone = try await TestPhone(subscriberId: nil) { $0.deviceToken = TestPhone.deviceToken }
        try await phone.client.login(subscriberId: "u_A", subscriberToken: .fixed(TestPhone.token))
        let failures = Locked(1)
        phone.transport.setRule { request in
            guard request.method == "PUT", failures.withLock({ left -> Bool in defer { left -= 1 }; return left > 0 }) else { return nil }
            return .status(503)
        }
        phone.transport.clearRequests()
        try await phone.client.login(subscriberId: "u_B", subscriberToken: .fixed(TestPhone.token))
        let before = await phone.client.registeredDevice
        XCTAssertNil(before, "the first registration for B failed")

        let client = phone.client
        let left = Task { await client.applicationDidEnterBackground() }
        try await Task.sleep(nanoseconds: 50_000_000)
        phone.clock.advance(by: 3)  // past the first retry (2 s), well within the background time
        await left.value
        let registered = await phone.client.registeredDevice
        XCTAssertEqual(registered?.token, TestPhone.deviceToken, "registered for B before the app was suspended")
        XCTAssertEqual(phone.transport.registrationRequests.map(\.url.path), ["/v1/subscribers/u_B/devices", "/v1/subscribers/u_B/devices"])
        XCTAssertLessThan(phone.clock.now, TestPhone.start.addingTimeInterval(phone.configuration.backgroundBudget),
                          "the wake ended as soon as the registration got through")
    }

    /// A push of A's plan that lands while the sync of B's sign-in is under way (requested
    /// before it arrived, so that sync cannot judge it) is removed by one more sync.
    func testAPlanOfAArrivingDuringASyncIsCheckedByAnotherSync() async throws {
        let phone = try await switchedFromAToB()
        let slowLists = Locked(1)
        phone.transport.setRule { request in
            guard request.method == "GET", slowLists.withLock({ left -> Bool in defer { left -= 1 }; return left > 0 }) else { return nil }
            return .delayed(0.3, .status(200, body: "{\"plans\": [], \"asOf\": \"2026-11-30T09:00:00Z\"}"))
        }
        phone.transport.clearRequests()
        await phone.client.startSync()  // B's list is on its way
        phone.clock.advance(by: 1)
        let payload = Payloads.plan("run-a8/x", messageId: "m-a8", fireAt: phone.fireAt(in: 30))
        let client = phone.client
        async let handled = client.handleRemoteNotification(payload: payload)
        try await Task.sleep(nanoseconds: 100_000_000)  // B's list is still on its way
        phone.clock.advance(by: 0.001)  // the next sync asks after the plan arrived
        _ = await handled
        try await phone.waitIdle()
        XCTAssertEqual(phone.transport.syncRequests.count, 2, "one more sync after the plan arrived")
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "not listed for B: removed")
        let shown = try await phone.advance(60)
        XCTAssertTrue(shown.isEmpty)
    }

    /// iOS launched the app for a push of A's plan, and the person switched to B during the
    /// launch: the push reaches the SDK after B's registration. If the wake must answer before
    /// its sync says whose plan it is, the plan must not be left in the center to fire for B
    /// (the all-at-once fleet, its wakes cut short by the simulator's load: 16 shown to B).
    /// Shortly after a switch a plan push is left to the wake's sync.
    func testAPlanArrivingJustAfterTheSwitchIsLeftToTheSync() async throws {
        let phone = try await switchedFromAToB()
        try await phone.waitIdle()
        phone.transport.setRule { request in
            request.method == "GET" ? .delayed(1, .status(200, body: "{\"plans\": [], \"asOf\": \"2026-11-30T09:00:00Z\"}")) : nil
        }
        phone.transport.clearRequests()
        phone.clock.advance(by: 1)
        let client = phone.client
        let payload = Payloads.plan("run-a7/x", messageId: "m-a7", fireAt: phone.fireAt(in: 600))
        let answer = Task { await client.handleRemoteNotification(payload: payload) }
        let began = Date()
        while phone.transport.syncRequests.isEmpty || phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        phone.clock.advance(by: 20)  // the budget runs out before B's list arrives
        _ = await answer.value
        let pending = await phone.pendingIds()
        XCTAssertFalse(pending.contains("run-a7/x"), "not in the center: no sync has said whose it is")

        // B's list (without it) answers the next sync: it goes for good.
        try await phone.waitIdle()
        phone.transport.setRule(nil)
        phone.transport.setPlans([])
        await phone.client.syncPlans()
        let record = await phone.client.planBook.records["run-a7/x"]
        XCTAssertNil(record)
        let shown = try await phone.advance(700)
        XCTAssertTrue(shown.isEmpty, "nothing of A shown to B")
    }

    func testBsPlansAreScheduledAndAcknowledgedForB() async throws {
        let phone = try await TestPhone(subscriberId: nil) { $0.deviceToken = TestPhone.deviceToken }
        try await phone.client.login(subscriberId: "u_A", subscriberToken: .fixed(TestPhone.token))
        await phone.receivePlan("run-a1/x", in: 3_600)
        phone.transport.setPlans([phone.plan("run-b1/x", in: 7_200)])
        try await phone.client.login(subscriberId: "u_B", subscriberToken: .fixed(TestPhone.token))

        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-b1/x"])
        let acks = phone.transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }
        XCTAssertEqual(acks.map(\.subscriberId), ["u_A", "u_B"])
        XCTAssertEqual(acks.last?.properties["localId"], "run-b1/x")
    }

    func testTheTokenIsFetchedAgainWithinAMinuteOfItsExpiry() async throws {
        let phone = try await TestPhone(subscriberId: nil)
        let clock = phone.clock
        let calls = Locked(0)
        let provider = SubscriberTokenProvider {
            calls.withLock { $0 += 1 }
            return Self.token(expiringAt: clock.now.addingTimeInterval(120), "ef")
        }
        try await phone.client.login(subscriberId: "u_1", subscriberToken: provider)
        let first = calls.current
        XCTAssertGreaterThanOrEqual(first, 1)
        let firstToken = Self.token(expiringAt: TestPhone.start.addingTimeInterval(120), "ef")

        try await phone.advance(30)  // 90 s left: the cached token is used
        try await phone.client.track("app.opened")
        await phone.client.flush()
        XCTAssertEqual(calls.current, first)
        XCTAssertEqual(phone.transport.eventRequests.last?.header("X-BuzzKit-Subscriber-Token"), firstToken)

        try await phone.advance(31)  // 59 s left: fetched again
        try await phone.client.track("app.opened")
        await phone.client.flush()
        XCTAssertEqual(calls.current, first + 1)
        let renewed = Self.token(expiringAt: TestPhone.start.addingTimeInterval(61 + 120), "ef")
        XCTAssertEqual(phone.transport.eventRequests.last?.header("X-BuzzKit-Subscriber-Token"), renewed)
    }

    func testA401FetchesANewTokenAndResends() async throws {
        let phone = try await TestPhone(subscriberId: nil)
        let calls = Locked(0)
        let provider = SubscriberTokenProvider {
            let n = calls.withLock { count -> Int in count += 1; return count }
            return Self.token(expiringAt: TestPhone.start.addingTimeInterval(86_400), n == 1 ? "01" : "02")
        }
        try await phone.client.login(subscriberId: "u_1", subscriberToken: provider)
        phone.transport.setRule { request in
            request.method == "POST" && request.header("X-BuzzKit-Subscriber-Token")?.hasSuffix("01") == true ? .status(401) : nil
        }
        try await phone.client.track("app.opened")
        await phone.client.flush()
        XCTAssertEqual(phone.postedNames, ["app.opened", "app.opened"], "refused with the old token, accepted with the new one")
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }
}
