import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// After `logout()` nothing of the subscriber stays on the phone (pending and shown BuzzKit
/// notifications, the `cancelOn` registry, queued events) while the app's own notifications
/// stay, and the server is told that this device receives nothing more for them
/// (`DELETE /v1/subscribers/{id}/devices/{token}`), at once or at the next wake.
final class LogoutTests: XCTestCase {
    private func signedInPhone() async throws -> TestPhone {
        let phone = try await TestPhone(subscriberId: nil) { $0.deviceToken = TestPhone.deviceToken }
        try await phone.client.login(subscriberId: "u_123", subscriberToken: .fixed(TestPhone.token))
        return phone
    }

    private func appNotification(_ id: String, in seconds: TimeInterval, _ phone: TestPhone) -> NotificationRequest {
        NotificationRequest(id: id, title: "Your order", body: "It ships today.", userInfo: ["orderId": "o-1"],
                            fireAt: phone.fireAt(in: seconds))
    }

    func testLogoutRemovesEverythingOfTheSubscriberButNotTheAppsOwnNotifications() async throws {
        let phone = try await signedInPhone()
        try await phone.center.add(appNotification("app/shown", in: 30, phone))
        await phone.receivePlan("run-0/a", in: 30)
        try await phone.advance(30)  // both shown
        await phone.center.presentRemote(payload: Payloads.fallback(localId: "run-9/a", messageId: "m-9"))
        try await phone.center.add(appNotification("app/pending", in: 3_600, phone))
        await phone.receivePlan("run-1/a", in: 3_600, cancelOn: ["workout.completed"])
        try await phone.client.track("app.opened")  // waits 5 s for company
        let queuedBefore = await phone.client.queuedEvents
        XCTAssertEqual(queuedBefore.map(\.event), ["app.opened"])

        await phone.client.logout()
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["app/pending"])
        let delivered = await phone.center.deliveredNotifications()
        XCTAssertEqual(delivered.map(\.id), ["app/shown"])
        let book = await phone.client.planBook
        XCTAssertTrue(book.records.isEmpty)
        XCTAssertEqual(book.registry.eventNames, [])
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
        let subscriber = await phone.client.subscriberId
        XCTAssertNil(subscriber)
        XCTAssertTrue(phone.activity.all.contains(.signedOut(subscriberId: "u_123", unregistered: true)))

        let delete = try XCTUnwrap(phone.transport.deleteRequests.first)
        XCTAssertEqual(delete.url.absoluteString, "https://api.buzzkit.test/v1/subscribers/u_123/devices/\(TestPhone.deviceToken)")
        XCTAssertEqual(delete.header("X-BuzzKit-Subscriber-Token"), TestPhone.token)
        XCTAssertEqual(phone.transport.deleteRequests.count, 1)

        try await phone.advance(3_600)
        XCTAssertFalse(phone.postedNames.contains("app.opened"), "the queued event of the old subscriber never goes out")
        let shownLater = await phone.center.deliveredNotifications()
        XCTAssertEqual(shownLater.map(\.id), ["app/shown", "app/pending"])
    }

    func testAfterLogoutPlansAreRefusedAndEventsNotTracked() async throws {
        let phone = try await signedInPhone()
        await phone.client.logout()
        let outcome = await phone.receivePlan("run-1/a", in: 600)
        XCTAssertEqual(outcome, .noData)
        XCTAssertEqual(phone.activity.rejections, [.signedOut])
        do {
            try await phone.client.track("workout.completed")
            XCTFail("tracked after logout")
        } catch let error as BuzzKitError {
            XCTAssertEqual(error.code, .notSignedIn)
        }
        phone.transport.clearRequests()
        try await phone.restart()
        XCTAssertTrue(phone.transport.allRequests.isEmpty, "a relaunch does not sign the old subscriber back in")
    }

    func testOfflineTheRemovalIsRetriedAtTheNextWakesUntilTheServerAnswers() async throws {
        let phone = try await signedInPhone()
        phone.network.setOnline(false)
        await phone.client.logout()
        XCTAssertTrue(phone.transport.deleteRequests.isEmpty)
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty, "the phone is cleared offline too")

        try await phone.restart()  // still offline: kept across launches
        phone.network.setOnline(true)
        phone.transport.setRule { $0.method == "DELETE" ? .status(503) : nil }
        await phone.client.networkDidBecomeAvailable()
        XCTAssertEqual(phone.transport.deleteRequests.count, 1)

        phone.transport.setRule { $0.method == "DELETE" ? .status(404, body: "{\"error\":{\"code\":\"not_found\",\"message\":\"no such device\"}}") : nil }
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(phone.transport.deleteRequests.count, 2)
        XCTAssertEqual(phone.transport.deleteRequests.last?.header("X-BuzzKit-Subscriber-Token"), TestPhone.token)

        // The 404 ended it: later wakes send nothing more.
        await phone.client.networkDidBecomeAvailable()
        await phone.client.applicationDidBecomeActive()
        try await phone.restart()
        XCTAssertEqual(phone.transport.deleteRequests.count, 2)
    }
}
