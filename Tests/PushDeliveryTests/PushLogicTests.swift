import Foundation
import PushDeliveryTesting
import XCTest
@testable import PushDelivery

/// The pure parts: what each APNs answer means, backoff, local checks, configuration, and the
/// in-memory provider other modules test with.
final class PushLogicTests: XCTestCase {
    private func answer(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Data(body.utf8), transportError: nil, newConnections: 0)
    }

    func testAnswersAreClassifiedAsAppleDocumentsThem() {
        let sent = UUID()
        let answered = UUID()
        XCTAssertEqual(APNsDecision.classify(answer(200, headers: ["apns-id": answered.uuidString]), sentId: sent),
                       .finish(.delivered(apnsId: answered)))
        XCTAssertEqual(APNsDecision.classify(answer(200), sentId: sent), .finish(.delivered(apnsId: sent)))
        XCTAssertEqual(APNsDecision.classify(answer(410, #"{"reason":"Unregistered","timestamp":1454402113000}"#), sentId: sent),
                       .finish(.deviceUnregistered(reason: "Unregistered", since: Date(timeIntervalSince1970: 1_454_402_113))))
        XCTAssertEqual(APNsDecision.classify(answer(400, #"{"reason":"BadDeviceToken"}"#), sentId: sent),
                       .finish(.deviceUnregistered(reason: "BadDeviceToken", since: nil)))
        XCTAssertEqual(APNsDecision.classify(answer(400, #"{"reason":"BadTopic"}"#), sentId: sent),
                       .finish(.rejected(status: 400, reason: "BadTopic")))
        XCTAssertEqual(APNsDecision.classify(answer(403, #"{"reason":"ExpiredProviderToken"}"#), sentId: sent),
                       .renewTokenAndRetry)
        XCTAssertEqual(APNsDecision.classify(answer(403, #"{"reason":"InvalidProviderToken"}"#), sentId: sent),
                       .finish(.failed(status: 403, reason: "InvalidProviderToken")))
        XCTAssertEqual(APNsDecision.classify(answer(413, #"{"reason":"PayloadTooLarge"}"#), sentId: sent),
                       .finish(.rejected(status: 413, reason: "PayloadTooLarge")))
        XCTAssertEqual(APNsDecision.classify(answer(413), sentId: sent), .finish(.rejected(status: 413, reason: "PayloadTooLarge")))
        XCTAssertEqual(APNsDecision.classify(answer(429, #"{"reason":"TooManyRequests"}"#), sentId: sent),
                       .retry(reason: "TooManyRequests"))
        XCTAssertEqual(APNsDecision.classify(answer(500, "not json"), sentId: sent), .retry(reason: "InternalServerError"))
        XCTAssertEqual(APNsDecision.classify(answer(503, #"{"reason":"Shutdown"}"#), sentId: sent), .retry(reason: "Shutdown"))
        XCTAssertEqual(APNsDecision.classify(.failure("curl: Couldn't connect (7)"), sentId: sent),
                       .retry(reason: "curl: Couldn't connect (7)"))
        XCTAssertEqual(APNsDecision.classify(answer(302), sentId: sent), .finish(.failed(status: 302, reason: "HTTP 302")))
    }

    func testBackoffGrowsExponentiallyWithJitterAndACap() {
        let policy = APNsConfiguration.RetryPolicy(maximumAttempts: 6, initialDelay: 0.1, maximumDelay: 1)
        XCTAssertEqual(policy.baseDelay(afterAttempt: 1), 0.1, accuracy: 1e-9)
        XCTAssertEqual(policy.baseDelay(afterAttempt: 2), 0.2, accuracy: 1e-9)
        XCTAssertEqual(policy.baseDelay(afterAttempt: 4), 0.8, accuracy: 1e-9)
        XCTAssertEqual(policy.baseDelay(afterAttempt: 5), 1.0, accuracy: 1e-9)
        XCTAssertEqual(policy.baseDelay(afterAttempt: 500), 1.0, accuracy: 1e-9)
        var delays = Set<Double>()
        for attempt in 1...5 {
            for _ in 0..<50 {
                let delay = policy.delay(afterAttempt: attempt)
                let base = policy.baseDelay(afterAttempt: attempt)
                XCTAssertGreaterThanOrEqual(delay, base / 2)
                XCTAssertLessThanOrEqual(delay, base)
                delays.insert(delay)
            }
        }
        XCTAssertGreaterThan(delays.count, 200, "jitter spreads the waits")
        XCTAssertEqual(APNsConfiguration.RetryPolicy(maximumAttempts: 0).maximumAttempts, 1)
    }

    func testLocalChecksRefuseWhatAPNsWouldRefuse() {
        let token = Fixtures.token(1)
        func push(_ change: (inout PushNotification) -> Void) -> PushNotification {
            var notification = PushNotification.background(deviceToken: token, topic: "t", environment: .sandbox,
                                                           expiration: nil, payload: Data("{}".utf8))
            change(&notification)
            return notification
        }
        XCTAssertNil(push { _ in }.localRefusal)
        XCTAssertNil(push { $0.payload = Data(repeating: 0x20, count: 4096) }.localRefusal, "4096 bytes is allowed")
        XCTAssertEqual(push { $0.payload = Data(repeating: 0x20, count: 4097) }.localRefusal,
                       .rejected(status: nil, reason: "PayloadTooLarge"))
        XCTAssertEqual(push { $0.payload = Data() }.localRefusal, .rejected(status: nil, reason: "PayloadEmpty"))
        XCTAssertEqual(push { $0.topic = "" }.localRefusal, .rejected(status: nil, reason: "MissingTopic"))
        XCTAssertEqual(push { $0.priority = 10 }.localRefusal, .rejected(status: nil, reason: "BadPriority"))
        XCTAssertEqual(push { $0.pushType = .alert; $0.priority = 7 }.localRefusal, .rejected(status: nil, reason: "BadPriority"))
        XCTAssertNil(push { $0.pushType = .alert; $0.priority = 5 }.localRefusal)
        XCTAssertNil(push { $0.collapseId = String(repeating: "c", count: 64) }.localRefusal)
        XCTAssertEqual(push { $0.collapseId = String(repeating: "c", count: 65) }.localRefusal,
                       .rejected(status: nil, reason: "BadCollapseId"))
        XCTAssertEqual(push { $0.deviceToken = "xyz" }.localRefusal,
                       .deviceUnregistered(reason: "BadDeviceToken", since: nil))
        XCTAssertEqual(push { $0.deviceToken = "" }.localRefusal, .deviceUnregistered(reason: "BadDeviceToken", since: nil))
        XCTAssertNil(push { $0.deviceToken = token.uppercased() }.localRefusal)
        let alert = PushNotification.alert(deviceToken: token, topic: "t", environment: .production,
                                           collapseId: "run_1/nudge/fallback", payload: Data("{}".utf8))
        XCTAssertEqual(alert.priority, 10)
        XCTAssertEqual(alert.pushType, .alert)
        XCTAssertEqual(PushNotification(deviceToken: token, topic: "t", pushType: .background, payload: Data()).priority, 5)
    }

    func testConfigurationDefaultsAndChecks() throws {
        let defaults = APNsConfiguration(keyID: "KEY1234567", teamID: "TEAM123456", privateKeyPEM: Fixtures.key.privateKeyPEM)
        XCTAssertNoThrow(try defaults.validate())
        XCTAssertEqual(defaults.baseURL(for: .production), "https://api.push.apple.com")
        XCTAssertEqual(defaults.baseURL(for: .sandbox), "https://api.sandbox.push.apple.com")
        XCTAssertEqual(defaults.maxConnections, 2)
        XCTAssertNil(try defaults.trustedCertificates())
        var local = defaults
        local.baseURL = "https://127.0.0.1:2197/"
        local.extraCAFile = Fixtures.caFile
        XCTAssertEqual(local.baseURL(for: .sandbox), "https://127.0.0.1:2197")
        XCTAssertEqual(try local.trustedCertificates()?.count, 1, "the stand-in's CA, added to the system's")

        func refused(_ change: (inout APNsConfiguration) -> Void) -> PushDeliveryError.Code? {
            var broken = local
            change(&broken)
            do {
                try broken.validate()
                _ = try broken.trustedCertificates()
                return nil
            } catch {
                return (error as? PushDeliveryError)?.code
            }
        }
        XCTAssertEqual(refused { $0.keyID = "" }, .invalidConfiguration)
        XCTAssertEqual(refused { $0.baseURL = "http://127.0.0.1:2197" }, .invalidConfiguration)
        XCTAssertEqual(refused { $0.baseURL = "https://host/3/device" }, .invalidConfiguration)
        XCTAssertEqual(refused { $0.maxConnections = 0 }, .invalidConfiguration)
        XCTAssertEqual(refused { $0.extraCAFile = "/nonexistent/ca.pem" }, .fileUnreadable)
        var notACertificate = local
        notACertificate.extraCAFile = Fixtures.directory + "/not-a-ca.pem"
        try Data(Fixtures.key.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: notACertificate.extraCAFile!))
        XCTAssertThrowsError(try APNsProvider(configuration: notACertificate))
    }

    func testInMemoryProviderRecordsAndAnswersPerToken() {
        let provider = InMemoryPushProvider()
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        provider.setOutcome(.deviceUnregistered(reason: "Unregistered", since: since), forToken: Fixtures.token(2).uppercased())
        provider.setOutcome(.failed(status: 503, reason: "ServiceUnavailable"), forToken: Fixtures.token(3))
        var oversize = Fixtures.silent(4)
        oversize.payload = Data(repeating: 0x20, count: 5000)
        let results = provider.send([Fixtures.silent(1), Fixtures.silent(2), Fixtures.silent(3), oversize])
        XCTAssertTrue(results[0].isDelivered)
        XCTAssertEqual(results[0].status, 200)
        XCTAssertEqual(results[1].outcome, .deviceUnregistered(reason: "Unregistered", since: since))
        XCTAssertTrue(results[1].deactivatesDevice)
        XCTAssertEqual(results[1].status, 410)
        XCTAssertEqual(results[2].outcome, .failed(status: 503, reason: "ServiceUnavailable"))
        XCTAssertEqual(results[3].outcome, .rejected(status: nil, reason: "PayloadTooLarge"))
        XCTAssertEqual(results[3].attempts, 0)
        XCTAssertEqual(provider.sent.map(\.deviceToken), [1, 2, 3].map(Fixtures.token), "the oversize push was not sent")
        XCTAssertEqual(provider.batchCount, 1)
        provider.removeOutcome(forToken: Fixtures.token(2))
        XCTAssertTrue(provider.send([Fixtures.silent(2)])[0].isDelivered)
        XCTAssertEqual(results.map(\.outcomeName), ["delivered", "unregistered", "failed", "rejected"])
    }
}
