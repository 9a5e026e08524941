import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The server may have deactivated the device's token after an APNs rejection (a restored
/// backup, a reinstall); Apple asks apps to register at every launch, so each launch sends the
/// device registration once, even when nothing changed, and the phone gets its pushes again.
/// A development build registers its token for Apple's sandbox.
final class RegistrationAtEveryLaunchTests: XCTestCase {
    func testEachLaunchRegistersOnceHoweverManyWakesItHas() async throws {
        let phone = try await TestPhone(foreground: false) { $0.deviceToken = TestPhone.deviceToken }
        XCTAssertEqual(phone.transport.registrationRequests.count, 1)
        await phone.receivePlan("run-1/a", in: 600)
        await phone.client.handleRemoteNotification(payload: Payloads.cancel("run-9"))
        await phone.client.applicationDidBecomeActive()
        await phone.client.networkDidBecomeAvailable()
        await phone.client.applicationDidEnterBackground()
        XCTAssertEqual(phone.transport.registrationRequests.count, 1, "wakes of the same launch")

        try await phone.restart(foreground: false)  // relaunched in the background for a push
        XCTAssertEqual(phone.transport.registrationRequests.count, 2, "unchanged, but sent again at the launch")
        try await phone.restart()
        XCTAssertEqual(phone.transport.registrationRequests.count, 3)
        let bodies = phone.transport.registrationRequests.map { RecordingTransport.stringBody($0) }
        XCTAssertEqual(Set(bodies).count, 1, "the same registration each time")
        XCTAssertEqual(phone.transport.registrationRequests.map(\.url.path), Array(repeating: "/v1/subscribers/u_123/devices", count: 3))
    }

    func testALaunchWhoseRegistrationFailedSendsItWhenTheNetworkReturns() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        phone.network.setOnline(false)
        try await phone.restart()
        XCTAssertEqual(phone.transport.registrationRequests.count, 1, "offline: nothing reached the server")
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        XCTAssertEqual(phone.transport.registrationRequests.count, 2)
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(phone.transport.registrationRequests.count, 2)
    }

    func testARefusedLaunchRegistrationIsNotRetriedInALoop() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        phone.transport.setRule { $0.method == "PUT" ? .status(400, body: "{\"error\":{\"code\":\"invalid_value\",\"message\":\"bad\"}}") : nil }
        try await phone.restart()
        try await phone.advance(3_600)
        XCTAssertEqual(phone.transport.registrationRequests.count, 2)
    }

    func testADebugBuildRegistersForTheSandbox() async throws {
        XCTAssertEqual(PushRegistration.Environment.ofThisBuild, .sandbox, "these tests are a debug build")
        let configuration = Configuration(apiBaseURL: URL(string: "https://x")!, publishableKey: "pk_t", pushTopic: "t")
        XCTAssertEqual(configuration.pushEnvironment, .sandbox)
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        XCTAssertEqual(RecordingTransport.stringBody(phone.transport.registrationRequests.first)["environment"], "sandbox")
    }
}
