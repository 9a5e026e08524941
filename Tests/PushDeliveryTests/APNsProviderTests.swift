import APNsStandIn
import BuzzTesting
import Foundation
import XCTest
@testable import PushDelivery

/// The real provider against the real stand-in: TLS + HTTP/2 on 127.0.0.1, JWTs verified by
/// the stand-in, failures injected by the stand-in.
final class APNsProviderTests: XCTestCase {
    func testSilentAndFallbackPushesCarryDesignHeadersAndAVerifiedJWT() throws {
        let harness = try Harness()
        let expiration = Date(timeIntervalSince1970: 1_800_000_000)
        let messageId = UUID()
        let fallback = PushNotification.alert(deviceToken: Fixtures.token(2).uppercased(), topic: Fixtures.topic,
                                              environment: .sandbox, collapseId: "run_1/nudge/fallback",
                                              payload: Fixtures.alertPayload(), apnsId: messageId)
        let results = harness.provider.send([Fixtures.silent(1, expiration: expiration), fallback])
        XCTAssertEqual(results.map(\.outcomeName), ["delivered", "delivered"])
        XCTAssertEqual(results.map(\.status), [200, 200])
        XCTAssertEqual(results.map(\.attempts), [1, 1])
        XCTAssertEqual(results[1].outcome, .delivered(apnsId: messageId), "the caller's apns-id is sent and echoed")

        let pushes = harness.standIn.pushes.sorted { $0.deviceToken < $1.deviceToken }
        XCTAssertEqual(pushes.count, 2)
        let silent = pushes[0]
        XCTAssertEqual(silent.headers[":method"], "POST")
        XCTAssertEqual(silent.headers[":path"], "/3/device/" + Fixtures.token(1))
        XCTAssertEqual(silent.headers["apns-push-type"], "background")
        XCTAssertEqual(silent.headers["apns-priority"], "5")
        XCTAssertEqual(silent.headers["apns-topic"], Fixtures.topic)
        XCTAssertEqual(silent.headers["apns-expiration"], "1800000000")
        XCTAssertNil(silent.headers["apns-collapse-id"])
        XCTAssertEqual(silent.headers["apns-id"], silent.apnsId.uuidString)
        XCTAssertEqual(results[0].outcome, .delivered(apnsId: silent.apnsId), "the answered apns-id is kept")
        XCTAssertTrue(silent.isSilent)
        XCTAssertEqual(silent.jsonObject?["aps"] as? [String: Int], ["content-available": 1])
        XCTAssertEqual(silent.keyID, Fixtures.key.keyID)

        let alert = pushes[1]
        XCTAssertEqual(alert.deviceToken, Fixtures.token(2))
        XCTAssertEqual(alert.headers["apns-push-type"], "alert")
        XCTAssertEqual(alert.headers["apns-priority"], "10")
        XCTAssertEqual(alert.headers["apns-collapse-id"], "run_1/nudge/fallback")
        XCTAssertNil(alert.headers["apns-expiration"])
        XCTAssertEqual(alert.payload, fallback.payload)

        // One JWT for both, and it says what Apple needs.
        XCTAssertEqual(Set(harness.authorizations).count, 1)
        let jwt = try XCTUnwrap(harness.authorizations.first?.dropFirst("bearer ".count))
        let pieces = jwt.split(separator: ".").map(String.init)
        let header = try XCTUnwrap(Data(base64URLEncoded: pieces[0]))
        let claims = try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(Data(base64URLEncoded: pieces[1]))) as? [String: Any])
        XCTAssertEqual(String(decoding: header, as: UTF8.self), "{\"alg\":\"ES256\",\"kid\":\"\(Fixtures.key.keyID)\"}")
        XCTAssertEqual(claims["iss"] as? String, Fixtures.key.teamID)
        let iat = try XCTUnwrap(claims["iat"] as? Int)
        XCTAssertEqual(Double(iat), Date().timeIntervalSince1970, accuracy: 60)
        XCTAssertEqual(harness.standIn.statistics.answersByStatus, [200: 2])
    }

    func testUnregisteredAndBadDeviceTokensMarkTheDeviceInactive() throws {
        var failures = APNsFailurePlan()
        let since = Date(timeIntervalSince1970: 1_750_000_000.25)
        failures.set(.unregistered(since: since), forToken: Fixtures.token(10))
        failures.set(.badDeviceToken, forToken: Fixtures.token(11))
        let harness = try Harness(failures: failures)
        let results = harness.provider.send([Fixtures.silent(10), Fixtures.silent(11), Fixtures.silent(12)])
        XCTAssertEqual(results[0].outcome, .deviceUnregistered(reason: "Unregistered", since: since))
        XCTAssertEqual(results[0].status, 410)
        XCTAssertEqual(results[0].attempts, 1, "a dead token is not retried")
        XCTAssertTrue(results[0].deactivatesDevice)
        XCTAssertEqual(results[1].outcome, .deviceUnregistered(reason: "BadDeviceToken", since: nil))
        XCTAssertEqual(results[1].status, 400)
        XCTAssertEqual(results[1].attempts, 1)
        XCTAssertTrue(results[2].isDelivered)
        XCTAssertEqual(harness.standIn.statistics.requests, 3)
        XCTAssertEqual(harness.standIn.pushes.map(\.deviceToken), [Fixtures.token(12)])
    }

    func testTooManyRequestsAndServerErrorsAreRetriedThenSucceed() throws {
        var failures = APNsFailurePlan()
        failures.set(.failFirst(2, status: 429, reason: "TooManyRequests"), forToken: Fixtures.token(20))
        failures.set(.failFirst(2, status: 500, reason: "InternalServerError"), forToken: Fixtures.token(21))
        failures.set(.failFirst(1, status: 503, reason: "ServiceUnavailable"), forToken: Fixtures.token(22))
        let harness = try Harness(failures: failures)
        let results = harness.provider.send([Fixtures.silent(20), Fixtures.silent(21), Fixtures.silent(22)])
        XCTAssertEqual(results.map(\.outcomeName), ["delivered", "delivered", "delivered"])
        XCTAssertEqual(results.map(\.attempts), [3, 3, 2])
        XCTAssertEqual(results.map(\.status), [200, 200, 200])
        let statistics = harness.standIn.statistics
        XCTAssertEqual(statistics.answersByStatus, [200: 3, 429: 2, 500: 2, 503: 1])
        XCTAssertEqual(harness.provider.statistics.retries, 5)
        // Retries keep the apns-id, so APNs and the deliveries row agree on one id per push.
        let ids = Set(harness.standIn.pushes.map(\.apnsId))
        XCTAssertEqual(ids, Set(results.compactMap(\.apnsId)))
    }

    func testPersistentFailuresStopAfterBoundedAttemptsWithBackoff() throws {
        var failures = APNsFailurePlan()
        failures.set(.status(500, reason: "InternalServerError"), forToken: Fixtures.token(30))
        failures.set(.status(429, reason: "TooManyRequests"), forToken: Fixtures.token(31))
        let harness = try Harness(failures: failures, configure: {
            $0.retry = APNsConfiguration.RetryPolicy(maximumAttempts: 3, initialDelay: 0.1, maximumDelay: 1)
        })
        let started = Date()
        let results = harness.provider.send([Fixtures.silent(30), Fixtures.silent(31)])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(results[0].outcome, .failed(status: 500, reason: "InternalServerError"))
        XCTAssertEqual(results[1].outcome, .failed(status: 429, reason: "TooManyRequests"))
        XCTAssertEqual(results.map(\.attempts), [3, 3])
        XCTAssertEqual(harness.standIn.statistics.requests, 6)
        // Waits of [0.05, 0.1] then [0.1, 0.2] seconds: at least 0.15 s in all.
        XCTAssertGreaterThanOrEqual(elapsed, 0.15)
        XCTAssertLessThan(elapsed, 5)
    }

    func testExpiredProviderTokenIsRenewedOnceAndRetried() throws {
        let start = Date()
        let providerClock = ManualClock(start)
        let standInClock = ManualClock(start)
        let harness = try Harness(providerClock: providerClock, standInClock: { standInClock.now })
        XCTAssertTrue(harness.provider.send([Fixtures.silent(40)])[0].isDelivered)
        let firstToken = try XCTUnwrap(harness.authorizations.first)
        XCTAssertEqual(harness.provider.statistics.tokensSigned, 1)

        // APNs's clock says the token is 61 minutes old; ours says 30, so the provider still
        // reuses it and must learn from the 403 that it is stale.
        standInClock.advance(by: 61 * 60)
        providerClock.advance(by: 30 * 60)
        let batch = (41..<61).map { Fixtures.silent($0) }
        let results = harness.provider.send(batch)
        XCTAssertEqual(Set(results.map(\.outcomeName)), ["delivered"])
        XCTAssertTrue(results.allSatisfy { (1...2).contains($0.attempts) })
        let expired = harness.standIn.statistics.answersByReason["ExpiredProviderToken"] ?? 0
        XCTAssertGreaterThanOrEqual(expired, 1)
        XCTAssertEqual(results.filter { $0.attempts == 2 }.count, expired)
        XCTAssertEqual(harness.provider.statistics.tokensSigned, 2, "all streams refused together share one new token")
        XCTAssertEqual(harness.provider.statistics.tokenRenewals, expired)
        let later = Set(harness.authorizations.dropFirst())
        XCTAssertEqual(later.count, 1)
        XCTAssertNotEqual(later.first, firstToken)
    }

    func testTokenIsReusedForManyPushesAndRefreshedAfterItsInterval() throws {
        let clock = ManualClock()
        let harness = try Harness(providerClock: clock, standInClock: { clock.now })
        XCTAssertEqual(harness.provider.send((0..<5).map { Fixtures.silent(100 + $0) }).filter(\.isDelivered).count, 5)
        clock.advance(by: 25 * 60)
        XCTAssertTrue(harness.provider.send([Fixtures.silent(105)])[0].isDelivered)
        XCTAssertEqual(Set(harness.authorizations).count, 1, "reused for 25 minutes")
        clock.advance(by: 26 * 60)
        XCTAssertTrue(harness.provider.send([Fixtures.silent(106)])[0].isDelivered)
        XCTAssertEqual(Set(harness.authorizations).count, 2, "renewed after 50 minutes")
        XCTAssertEqual(harness.provider.statistics.tokensSigned, 2)
        XCTAssertEqual(harness.standIn.statistics.answersByStatus, [200: 7], "never refused as expired")
    }

    func testOversizePayloadIsRefusedBeforeSending() throws {
        let harness = try Harness()
        var oversize = Fixtures.silent(50)
        oversize.payload = Data(("{\"aps\":{\"content-available\":1},\"pad\":\"" + String(repeating: "x", count: 4100) + "\"}").utf8)
        let alone = harness.provider.send([oversize])
        XCTAssertEqual(alone[0].outcome, .rejected(status: nil, reason: "PayloadTooLarge"))
        XCTAssertEqual(alone[0].attempts, 0)
        XCTAssertNil(alone[0].apnsId)
        XCTAssertEqual(harness.standIn.statistics.tcpConnections, 0, "nothing was even connected")

        var exactlyFull = Fixtures.silent(51)
        let filler = 4096 - "{\"pad\":\"\"}".utf8.count
        exactlyFull.payload = Data(("{\"pad\":\"" + String(repeating: "y", count: filler) + "\"}").utf8)
        XCTAssertEqual(exactlyFull.payload.count, 4096)
        let mixed = harness.provider.send([oversize, exactlyFull])
        XCTAssertEqual(mixed[0].outcome, .rejected(status: nil, reason: "PayloadTooLarge"))
        XCTAssertTrue(mixed[1].isDelivered)
        XCTAssertEqual(harness.standIn.statistics.requests, 1, "the stand-in never saw the oversize push")
        XCTAssertEqual(harness.standIn.pushes.map(\.deviceToken), [Fixtures.token(51)])
    }

    func testConcurrentSendsMultiplexOverAtMostTwoConnectionsWithoutChurn() throws {
        let harness = try Harness()
        let first = harness.provider.send((0..<1500).map { Fixtures.silent(1000 + $0) })
        XCTAssertEqual(first.filter(\.isDelivered).count, 1500)
        let afterFirst = harness.standIn.statistics
        XCTAssertLessThanOrEqual(afterFirst.tlsConnections, 2)
        XCTAssertGreaterThanOrEqual(afterFirst.tlsConnections, 1)

        // Four worker threads at once, as the pipeline's workers would call it.
        let delivered = Fixtures.Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let batch = (0..<300).map { Fixtures.silent(5000 + worker * 300 + $0) }
            delivered.add(harness.provider.send(batch).filter(\.isDelivered).count)
        }
        XCTAssertEqual(delivered.value, 1200)
        // More than twice the 1000 RST_STREAMs (libcurl resets each finished stream) that
        // nghttp2's rapid-reset guard allows by default: the connections must survive them.
        for round in 0..<2 {
            let batch = (0..<1000).map { Fixtures.silent(7000 + round * 1000 + $0) }
            XCTAssertEqual(harness.provider.send(batch).filter(\.isDelivered).count, 1000)
        }
        let statistics = harness.standIn.statistics
        XCTAssertEqual(statistics.tlsConnections, afterFirst.tlsConnections, "no new connections at steady state")
        XCTAssertEqual(statistics.tcpConnections, afterFirst.tlsConnections)
        XCTAssertEqual(statistics.accepted, 4700)
        XCTAssertLessThanOrEqual(harness.provider.statistics.connectionsOpened, 2)
        XCTAssertEqual(Set(harness.standIn.pushes.map(\.connection)).count, statistics.tlsConnections)
    }

    func testStreamsRunConcurrentlyNotOneAfterAnother() throws {
        var failures = APNsFailurePlan()
        failures.latency = 0.3
        let harness = try Harness(failures: failures)
        let started = Date()
        let results = harness.provider.send((0..<200).map { Fixtures.silent(9000 + $0) })
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(results.filter(\.isDelivered).count, 200)
        // One after another this would take 200 × 0.3 s / 2 connections = 30 s.
        XCTAssertLessThan(elapsed, 3, "200 answers delayed 0.3 s each arrived in \(elapsed) s")
        XCTAssertLessThanOrEqual(harness.standIn.statistics.tlsConnections, 2)
    }

    func testRandomFailureRatesAreAbsorbedByRetries() throws {
        var failures = APNsFailurePlan()
        failures.tooManyRequestsRate = 0.2
        failures.internalServerErrorRate = 0.1
        let harness = try Harness(failures: failures, configure: {
            $0.retry = APNsConfiguration.RetryPolicy(maximumAttempts: 12, initialDelay: 0.002, maximumDelay: 0.02)
        })
        let results = harness.provider.send((0..<300).map { Fixtures.silent(20000 + $0) })
        XCTAssertEqual(results.filter(\.isDelivered).count, 300)
        let statistics = harness.standIn.statistics
        XCTAssertGreaterThan(statistics.answersByStatus[429] ?? 0, 20)
        XCTAssertGreaterThan(statistics.answersByStatus[500] ?? 0, 5)
        XCTAssertEqual(harness.provider.statistics.retries, statistics.requests - 300)
    }

    func testWrongKeyOrUntrustedServerFailsWithoutDelivering() throws {
        let stranger = try ProviderKeyPair.generate(keyID: "STRANGER01", teamID: "TESTTEAM01")
        let wrongKey = try Harness(providerKey: stranger)
        let refused = wrongKey.provider.send([Fixtures.silent(60)])[0]
        XCTAssertEqual(refused.outcome, .failed(status: 403, reason: "InvalidProviderToken"))
        XCTAssertEqual(refused.attempts, 1, "a refused key is not retried push by push")

        let untrusted = try Harness(trustCA: false, configure: { $0.retry = APNsConfiguration.RetryPolicy(maximumAttempts: 2, initialDelay: 0.01) })
        let result = untrusted.provider.send([Fixtures.silent(61)])[0]
        guard case .failed(nil, let reason) = result.outcome else { return XCTFail("expected a TLS failure, got \(result)") }
        XCTAssertTrue(reason.hasPrefix("curl:"), reason)
        XCTAssertEqual(result.attempts, 2)
        XCTAssertEqual(untrusted.standIn.statistics.tlsConnections, 0)
        XCTAssertEqual(untrusted.standIn.statistics.requests, 0)
    }

    func testClosedProviderFailsPushesAtOnce() throws {
        let harness = try Harness()
        XCTAssertTrue(harness.provider.send([Fixtures.silent(70)])[0].isDelivered)
        harness.provider.close()
        let result = harness.provider.send([Fixtures.silent(71)])[0]
        guard case .failed(nil, let reason) = result.outcome else { return XCTFail("expected failure, got \(result)") }
        XCTAssertTrue(reason.hasPrefix("closed"))
        XCTAssertEqual(harness.standIn.statistics.requests, 1)
    }

    func testProviderReconnectsWhenTheServerGoesAway() throws {
        let harness = try Harness()
        XCTAssertTrue(harness.provider.send([Fixtures.silent(97)])[0].isDelivered)
        let port = harness.standIn.port
        harness.standIn.stop()  // GOAWAY, then the connection closes
        let replacement = try APNsStandIn(configuration: APNsStandInConfiguration(
            credentials: Fixtures.credentials, providerKeys: [Fixtures.key], port: port))
        try replacement.start()
        defer { replacement.stop() }
        let results = harness.provider.send((0..<50).map { Fixtures.silent(98_000 + $0) })
        XCTAssertEqual(results.filter(\.isDelivered).count, 50)
        XCTAssertEqual(replacement.statistics.accepted, 50)
        XCTAssertGreaterThanOrEqual(replacement.statistics.tlsConnections, 1)
        XCTAssertLessThanOrEqual(replacement.statistics.tlsConnections, 2)
        XCTAssertLessThanOrEqual(harness.provider.statistics.connectionsOpened, 3)
    }
}
