import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The push subscription: `PUT /v1/subscribers/{id}/devices` with
/// `{platform: "ios", token, topic, environment}`.
final class RegistrationTests: XCTestCase {
    private func body(_ request: HTTPTransportRequest?) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: XCTUnwrap(request?.body))
    }

    func testStartRegistersTheConfiguredDevice() async throws {
        let phone = try await TestPhone {
            $0.deviceToken = TestPhone.deviceToken.uppercased()
            $0.pushEnvironment = .sandbox
        }
        let request = try XCTUnwrap(phone.transport.requests.first)
        XCTAssertEqual(request.method, "PUT")
        XCTAssertEqual(request.url.absoluteString, "https://api.buzzkit.test/v1/subscribers/u_123/devices")
        XCTAssertEqual(request.header("Authorization"), "Bearer pk_tenant_secret")
        XCTAssertEqual(request.header("X-BuzzKit-Subscriber-Token"), TestPhone.token)
        var sent = try body(request)
        let installId = try XCTUnwrap(sent.removeValue(forKey: "installId"))
        XCTAssertNotNil(UUID(uuidString: installId), "this install's id")
        XCTAssertEqual(sent, ["platform": "ios", "token": TestPhone.deviceToken, "topic": "com.example.gym",
                              "environment": "sandbox", "authorization": "authorized", "timezone": "Europe/Berlin"])
        let registered = await phone.client.registeredDevice
        XCTAssertEqual(registered?.token, TestPhone.deviceToken)
    }

    /// Each install of the app has its own id, kept across launches in the app's files (not the
    /// Keychain, which outlives the app): a reinstall registers a new one, and the server
    /// retires what the deleted install acknowledged.
    func testTheInstallIdIsKeptAcrossLaunchesAndNewAfterAReinstall() async throws {
        let store = InMemoryKeyValueStore()
        let phone = try await TestPhone(store: store) { $0.deviceToken = TestPhone.deviceToken }
        let first = try XCTUnwrap(try body(phone.transport.registrationRequests.last)["installId"])
        try await phone.restart()
        XCTAssertEqual(try body(phone.transport.registrationRequests.last)["installId"], first, "the same install")
        let reinstalled = try await TestPhone(store: InMemoryKeyValueStore()) { $0.deviceToken = TestPhone.deviceToken }
        let second = try XCTUnwrap(try body(reinstalled.transport.registrationRequests.last)["installId"])
        XCTAssertNotEqual(second, first, "a new install")
    }

    /// A reinstall on the same phone: the files went with the app, the Keychain stayed (as on
    /// iOS), so the new install names the one it replaced, on every registration until a
    /// later install replaces it in turn; where the secrets went too, it names none.
    func testANewInstallNamesTheInstallItReplacedOnThePhone() async throws {
        let keychain = InMemoryKeyValueStore()
        let phone = try await TestPhone(secrets: keychain) { $0.deviceToken = TestPhone.deviceToken }
        let first = try XCTUnwrap(try body(phone.transport.registrationRequests.last)["installId"])
        XCTAssertNil(try body(phone.transport.registrationRequests.last)["replacesInstallId"], "a first install replaces nothing")
        try await phone.restart()
        XCTAssertNil(try body(phone.transport.registrationRequests.last)["replacesInstallId"], "the same install, relaunched")
        let newToken = String(repeating: "cd", count: 32)
        let reinstalled = try await TestPhone(secrets: keychain) { $0.deviceToken = newToken }
        let sent = try body(reinstalled.transport.registrationRequests.last)
        XCTAssertNotEqual(sent["installId"], first)
        XCTAssertEqual(sent["replacesInstallId"], first, "the install the Keychain outlived")
        try await reinstalled.restart()
        XCTAssertEqual(try body(reinstalled.transport.registrationRequests.last)["replacesInstallId"], first,
                       "still named after a relaunch (the server may not have taken it yet)")
        let withoutKeychain = try await TestPhone(secrets: InMemoryKeyValueStore()) { $0.deviceToken = newToken }
        XCTAssertNil(try body(withoutKeychain.transport.registrationRequests.last)["replacesInstallId"])
    }

    /// The phone's zone goes with the device (the server moves the subscriber's with it), and a
    /// change of zone (a flight) registers it again at once.
    func testTheTimeZoneIsRegisteredAndAChangeRegistersAgain() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        XCTAssertEqual(try body(phone.transport.registrationRequests.last)["timezone"], "Europe/Berlin")
        let before = phone.transport.registrationRequests.count
        phone.clock.setTimeZone(TestPhone.newYork)
        await phone.client.timeZoneDidChange()
        await phone.client.settle()
        XCTAssertEqual(phone.transport.registrationRequests.count, before + 1)
        XCTAssertEqual(try body(phone.transport.registrationRequests.last)["timezone"], "America/New_York")
        await phone.client.timeZoneDidChange()
        await phone.client.settle()
        XCTAssertEqual(phone.transport.registrationRequests.count, before + 1, "the same zone again registers nothing")
    }

    /// Every launch registers once (the server may have deactivated the token after an APNs
    /// rejection; registering reactivates it), and a new token registers at once.
    func testEveryLaunchRegistersOnceAndANewTokenAtOnce() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        XCTAssertEqual(phone.transport.requests.count, 1)
        await phone.client.applicationDidEnterBackground()
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(phone.transport.requests.count, 1, "returning to the foreground is not a launch")
        try await phone.restart()
        XCTAssertEqual(phone.transport.requests.count, 2)
        let newToken = String(repeating: "a1", count: 32)
        try await phone.client.setDeviceToken(newToken)
        XCTAssertEqual(phone.transport.requests.count, 3)
        XCTAssertEqual(try body(phone.transport.requests.last)["token"], newToken)
    }

    func testFailedRegistrationIsRetriedWithBackoff() async throws {
        let phone = try await TestPhone(start: false) { $0.deviceToken = TestPhone.deviceToken }
        phone.transport.script(.status(503), .unavailable)
        await phone.client.start()
        XCTAssertEqual(phone.transport.requests.count, 1)
        try await phone.advance(1)
        XCTAssertEqual(phone.transport.requests.count, 1)
        try await phone.advance(1)
        XCTAssertEqual(phone.transport.requests.count, 2)
        try await phone.advance(4)
        XCTAssertEqual(phone.transport.requests.count, 3)
        let registered = await phone.client.registeredDevice
        XCTAssertNotNil(registered)
        var expected = PushRegistration(token: TestPhone.deviceToken, topic: "com.example.gym", environment: .ofThisBuild)
        expected.authorization = .authorized
        expected.timezone = "Europe/Berlin"
        expected.installId = await phone.client.installId
        XCTAssertTrue(phone.activity.all.contains(.deviceRegistered(expected)))
    }

    func testRefusedRegistrationIsNotRetriedForever() async throws {
        let phone = try await TestPhone(start: false) { $0.deviceToken = TestPhone.deviceToken }
        phone.transport.setFallback(.status(400, body: "{\"error\":{\"code\":\"invalid_value\",\"message\":\"bad token\"}}"))
        await phone.client.start()
        try await phone.advance(3_600)
        XCTAssertEqual(phone.transport.requests.count, 1)
        let error = await phone.client.registerDevice()
        XCTAssertEqual(error?.code, .httpStatus)
        XCTAssertTrue(error?.message.contains("bad token") ?? false)
    }

    func testSubscriberIdIsPercentEncodedInThePath() async throws {
        let phone = try await TestPhone(subscriberId: "user 1/ä") { $0.deviceToken = TestPhone.deviceToken }
        XCTAssertEqual(phone.transport.requests.first?.url.absoluteString,
                       "https://api.buzzkit.test/v1/subscribers/user%201%2F%C3%A4/devices")
    }

    func testTokenFromRawBytesAndMalformedTokens() async throws {
        let phone = try await TestPhone()
        try await phone.client.setDeviceToken(Data([0x0a, 0xff, 0x10, 0x00, 0x01, 0x02, 0x03, 0x04]))
        XCTAssertEqual(try body(phone.transport.requests.last)["token"], "0aff100001020304")
        do {
            try await phone.client.setDeviceToken("not-hex")
            XCTFail("a malformed token was accepted")
        } catch let error as BuzzKitError {
            XCTAssertEqual(error.code, .invalidConfiguration)
        }
    }

    func testConfigurationIsValidated() {
        var configuration = Configuration(apiBaseURL: URL(string: "https://x")!, publishableKey: "sk_secret",
                                          subscriberId: "u", subscriberToken: .fixed("t"), pushTopic: "t")
        XCTAssertThrowsError(try configuration.validate())
        configuration.publishableKey = "pk_ok"
        XCTAssertNoThrow(try configuration.validate())
        configuration.eventBatchSize = 1_001
        XCTAssertThrowsError(try configuration.validate())
        configuration.eventBatchSize = 10
        configuration.deviceToken = "xyz"
        XCTAssertThrowsError(try configuration.validate())
    }
}
