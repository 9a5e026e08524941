import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// When the person has turned notifications off, the phone does not claim a plan it cannot
/// show (no acknowledgment, so the server's fallback reaches the subscriber's other devices),
/// and the server learns the permission with the device (`"authorization"` in
/// `PUT /v1/subscribers/{id}/devices`) whenever it changes.
final class NotificationPermissionTests: XCTestCase {
    private func authorizations(_ phone: TestPhone) -> [String?] {
        phone.transport.registrationRequests.map { RecordingTransport.stringBody($0)["authorization"] }
    }

    func testWithPermissionDeniedAPlanIsNeitherScheduledNorAcknowledged() async throws {
        let phone = try await TestPhone(foreground: false, authorization: .denied)
        let outcome = await phone.receivePlan("run-1/a", in: 600, messageId: "m-1")
        XCTAssertEqual(outcome, .noData)
        XCTAssertTrue(phone.activity.all.contains(.planRejected(localId: "run-1/a", messageId: "m-1", reason: .notAuthorized)))
        var pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)

        // Nor does a sync listing it schedule it.
        phone.transport.addPlan(phone.plan("run-2/a", in: 900))
        await phone.client.applicationDidBecomeActive()
        pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        XCTAssertTrue(phone.acknowledgedIds.isEmpty)
        XCTAssertEqual(Set(phone.activity.rejections), [.notAuthorized])
    }

    func testTheRegistrationCarriesThePermissionAndIsSentAgainWhenItChanges() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        XCTAssertEqual(authorizations(phone), ["authorized"])

        // The person turns notifications off in Settings and comes back to the app.
        await phone.client.applicationDidEnterBackground()
        await phone.center.setAuthorization(.denied)
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(authorizations(phone), ["authorized", "denied"])
        XCTAssertTrue(phone.activity.all.contains(.authorizationChanged(.denied)))
        let registered = await phone.client.registeredDevice
        XCTAssertEqual(registered?.authorization, .denied)

        // Coming back again without a change sends nothing.
        await phone.client.applicationDidEnterBackground()
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(authorizations(phone), ["authorized", "denied"])

        // And on again: plans are shown again.
        await phone.center.setAuthorization(.authorized)
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(authorizations(phone), ["authorized", "denied", "authorized"])
        let outcome = await phone.receivePlan("run-1/a", in: 600)
        XCTAssertEqual(outcome, .newData)
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"])
    }

    /// On an iPhone the device token arrives after `configure` (from
    /// `didRegisterForRemoteNotificationsWithDeviceToken`); its first registration carries
    /// the permission too.
    func testTheFirstRegistrationOfATokenGivenLaterCarriesThePermission() async throws {
        let phone = try await TestPhone(authorization: .denied)
        XCTAssertTrue(phone.transport.registrationRequests.isEmpty)
        try await phone.client.setDeviceToken(TestPhone.deviceToken)
        XCTAssertEqual(authorizations(phone), ["denied"])
    }

    func testAPermissionChangeNoticedAtAPushWakeIsRegistered() async throws {
        let phone = try await TestPhone(foreground: false) { $0.deviceToken = TestPhone.deviceToken }
        await phone.center.setAuthorization(.provisional)
        await phone.receivePlan("run-1/a", in: 600)
        XCTAssertEqual(authorizations(phone), ["authorized", "provisional"])
        XCTAssertEqual(phone.acknowledgedIds, ["run-1/a"], "provisional notifications are shown, quietly")
    }

    func testAskingForPermissionTurnsNotDeterminedIntoTheAnswerAndRegistersIt() async throws {
        let phone = try await TestPhone(authorization: .notDetermined, answerWhenAsked: .provisional) {
            $0.deviceToken = TestPhone.deviceToken
        }
        XCTAssertEqual(authorizations(phone), ["notDetermined"])
        await phone.receivePlan("run-1/a", in: 600)
        XCTAssertEqual(Set(phone.activity.rejections), [.notAuthorized], "not asked yet: nothing would be shown")
        XCTAssertTrue(phone.acknowledgedIds.isEmpty)

        let answer = try await phone.client.requestNotificationPermission()
        XCTAssertEqual(answer, .provisional)
        let status = await phone.center.authorizationStatus()
        XCTAssertEqual(status, .provisional)
        XCTAssertEqual(authorizations(phone), ["notDetermined", "provisional"])

        // Asking again gives the same answer and registers nothing new.
        let again = try await phone.client.requestNotificationPermission()
        XCTAssertEqual(again, .provisional)
        XCTAssertEqual(authorizations(phone), ["notDetermined", "provisional"])

        // The next wake's sync picks up the plan refused before; the new one is scheduled too.
        await phone.receivePlan("run-2/a", in: 600)
        XCTAssertEqual(Set(phone.acknowledgedIds), ["run-1/a", "run-2/a"])
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a", "run-2/a"])
    }

    func testADeniedAnswerIsRegisteredAsDenied() async throws {
        let phone = try await TestPhone(authorization: .notDetermined, answerWhenAsked: .denied) {
            $0.deviceToken = TestPhone.deviceToken
        }
        let answer = try await phone.client.requestNotificationPermission()
        XCTAssertEqual(answer, .denied)
        XCTAssertEqual(authorizations(phone), ["notDetermined", "denied"])
    }
}
