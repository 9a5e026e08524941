import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Before the person signs in (an app configured with
/// `Configuration(apiBaseURL:publishableKey:pushTopic:)`), the phone shows and acknowledges no
/// plan and tracks nothing: there is nobody to show it to or to track it for. Signing in
/// registers the device for that subscriber and fetches their plans at once.
final class SignedOutPhoneTests: XCTestCase {
    private static let otherToken = "v1.\(Int(TestPhone.start.timeIntervalSince1970) + 86_400).\(String(repeating: "cd", count: 32))"

    func testWithNobodySignedInAPlanIsRefusedAndNothingIsSent() async throws {
        let phone = try await TestPhone(subscriberId: nil, foreground: false) { $0.deviceToken = TestPhone.deviceToken }
        let subscriber = await phone.client.subscriberId
        XCTAssertNil(subscriber)
        let outcome = await phone.receivePlan("run-1/a", in: 600, messageId: "m-1")
        XCTAssertEqual(outcome, .noData)
        XCTAssertEqual(phone.activity.rejections, [.signedOut])
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        await phone.client.applicationDidBecomeActive()
        XCTAssertTrue(phone.transport.allRequests.isEmpty, "no registration, sync or acknowledgment without a subscriber")
        let shown = try await phone.advance(600)
        XCTAssertTrue(shown.isEmpty)
    }

    func testTrackThrowsNotSignedInAndQueuesNothing() async throws {
        let phone = try await TestPhone(subscriberId: nil)
        do {
            try await phone.client.track("workout.completed")
            XCTFail("tracked with nobody signed in")
        } catch let error as BuzzKitError {
            XCTAssertEqual(error.code, .notSignedIn)
        }
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
        try await phone.advance(60)
        XCTAssertTrue(phone.transport.allRequests.isEmpty)
    }

    /// A phone that holds plans but no identity (an app updating from an SDK that did not
    /// remember the subscriber, configured now without one): the event still cancels what it
    /// names, offline and at once, though it cannot be tracked.
    func testTrackWithNobodySignedInStillCancelsLocally() async throws {
        let phone = try await TestPhone(subscriberId: nil)
        try await phone.client.login(subscriberId: "u_1", subscriberToken: .fixed(TestPhone.token))
        await phone.receivePlan("run-1/a", in: 600, cancelOn: ["workout.completed"])
        await phone.receivePlan("run-2/a", in: 600)
        try phone.store.setData(nil, forKey: "buzzkit.identity")
        try await phone.restart()
        let subscriber = await phone.client.subscriberId
        XCTAssertNil(subscriber)

        do {
            try await phone.client.track("workout.completed")
            XCTFail("tracked with nobody signed in")
        } catch let error as BuzzKitError {
            XCTAssertEqual(error.code, .notSignedIn)
        }
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-2/a"], "the cancel happened anyway")
        XCTAssertFalse(phone.postedNames.contains("workout.completed"))
    }

    func testLoginRegistersTheDeviceForThatSubscriberAndFetchesTheirPlans() async throws {
        let phone = try await TestPhone(subscriberId: nil) { $0.deviceToken = TestPhone.deviceToken }
        phone.transport.addPlan(phone.plan("run-7/a", in: 3_600, messageId: "m-7"))
        XCTAssertTrue(phone.transport.allRequests.isEmpty)

        try await phone.client.login(subscriberId: "u_9", subscriberToken: .fixed(Self.otherToken))
        XCTAssertTrue(phone.activity.all.contains(.signedIn(subscriberId: "u_9")))
        let registration = try XCTUnwrap(phone.transport.registrationRequests.first)
        XCTAssertEqual(registration.url.path, "/v1/subscribers/u_9/devices")
        XCTAssertEqual(registration.header("X-BuzzKit-Subscriber-Token"), Self.otherToken)
        XCTAssertEqual(RecordingTransport.stringBody(registration)["token"], TestPhone.deviceToken)
        XCTAssertEqual(phone.transport.syncRequests.map(\.url.path), ["/v1/subscribers/u_9/plans"])

        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-7/a"])
        let ack = try XCTUnwrap(phone.transport.postedEvents.first { $0.event == BuzzEvent.localScheduled })
        XCTAssertEqual(ack.subscriberId, "u_9")
        XCTAssertEqual(phone.transport.eventRequests.first?.header("X-BuzzKit-Subscriber-Token"), Self.otherToken)
    }

    /// A silent push that launches the app before it signed in again (its session is read
    /// later) is acknowledged for the remembered subscriber with the last token.
    func testAColdLaunchBeforeTheAppSignsInAgainActsForTheRememberedSubscriber() async throws {
        let phone = try await TestPhone(subscriberId: nil)
        try await phone.client.login(subscriberId: "u_9", subscriberToken: .fixed(Self.otherToken))
        try await phone.restart(foreground: false)
        phone.transport.clearRequests()

        let outcome = await phone.receivePlan("run-1/a", in: 600)
        XCTAssertEqual(outcome, .newData)
        let ack = try XCTUnwrap(phone.transport.postedEvents.first)
        XCTAssertEqual(ack.subscriberId, "u_9")
        XCTAssertEqual(phone.transport.eventRequests.first?.header("X-BuzzKit-Subscriber-Token"), Self.otherToken)
        XCTAssertEqual(phone.transport.syncRequests.last?.url.path, "/v1/subscribers/u_9/plans")

        // Signing in as the same subscriber again removes nothing.
        try await phone.client.login(subscriberId: "u_9", subscriberToken: .fixed(Self.otherToken))
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        XCTAssertTrue(phone.transport.deleteRequests.isEmpty)
    }
}
