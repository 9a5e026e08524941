import COpenSSL
import Foundation
import XCTest
@testable import APNsStandIn
@testable import PushDelivery
#if canImport(Glibc)
import Glibc
#endif

/// The stand-in on its own: Apple's checks on requests the provider never makes, survival of
/// garbage, the onPush hook, and the command-line failure rules.
final class APNsStandInTests: XCTestCase {
    private func valid(token: String = Fixtures.token(1), jwt: String? = nil,
                       change: (inout [(name: String, value: String)]) -> Void = { _ in }) throws
        -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + (try jwt ?? Fixtures.jwt())),
            ("apns-topic", Fixtures.topic),
            ("apns-push-type", "background"),
            ("apns-priority", "5"),
        ]
        change(&headers)
        return headers
    }

    private func reason(_ response: HTTPResponse) -> String? {
        APNsDecision.reason(in: response.body)
    }

    func testStandInRefusesWhatAppleRefuses() throws {
        let harness = try Harness()
        let client = try RawClient()
        let url = harness.standIn.baseURL + "/3/device/" + Fixtures.token(1)
        let body = Data(#"{"aps":{"content-available":1}}"#.utf8)
        func set(_ name: String, _ value: String?) -> (inout [(name: String, value: String)]) -> Void {
            { headers in
                headers.removeAll { $0.name == name }
                if let value { headers.append((name, value)) }
            }
        }
        let cases: [(String, HTTPRequest, Int, String)] = [
            ("GET", HTTPRequest(url: url, method: "GET", headers: try valid()), 405, "MethodNotAllowed"),
            ("path", HTTPRequest(url: harness.standIn.baseURL + "/3/push/x", headers: try valid(), body: body), 404, "BadPath"),
            ("no token", HTTPRequest(url: harness.standIn.baseURL + "/3/device/", headers: try valid(), body: body),
             400, "MissingDeviceToken"),
            ("short token", HTTPRequest(url: harness.standIn.baseURL + "/3/device/abcd", headers: try valid(), body: body),
             400, "BadDeviceToken"),
            ("no auth", HTTPRequest(url: url, headers: try valid(change: set("authorization", nil)), body: body),
             403, "MissingProviderToken"),
            ("garbage jwt", HTTPRequest(url: url, headers: try valid(jwt: "x.y.z"), body: body), 403, "InvalidProviderToken"),
            ("basic auth", HTTPRequest(url: url, headers: try valid(change: set("authorization", "basic dTpw")), body: body),
             403, "InvalidProviderToken"),
            ("other key", HTTPRequest(url: url, headers: try valid(jwt: Fixtures.jwt(key: ProviderKeyPair.generate(
                keyID: Fixtures.key.keyID))), body: body), 403, "InvalidProviderToken"),
            ("unknown kid", HTTPRequest(url: url, headers: try valid(jwt: Fixtures.jwt(kid: "NOSUCHKEY1")), body: body),
             403, "InvalidProviderToken"),
            ("other team", HTTPRequest(url: url, headers: try valid(jwt: Fixtures.jwt(iss: "OTHERTEAM1")), body: body),
             403, "InvalidProviderToken"),
            ("HS256", HTTPRequest(url: url, headers: try valid(jwt: Fixtures.jwt(
                header: "{\"alg\":\"HS256\",\"kid\":\"\(Fixtures.key.keyID)\"}",
                claims: "{\"iss\":\"\(Fixtures.key.teamID)\",\"iat\":\(Int(Date().timeIntervalSince1970))}",
                key: Fixtures.key)), body: body), 403, "InvalidProviderToken"),
            ("old jwt", HTTPRequest(url: url, headers: try valid(jwt: Fixtures.jwt(iat: Date().addingTimeInterval(-3700))),
                                    body: body), 403, "ExpiredProviderToken"),
            ("future jwt", HTTPRequest(url: url, headers: try valid(jwt: Fixtures.jwt(iat: Date().addingTimeInterval(7200))),
                                       body: body), 403, "InvalidProviderToken"),
            ("no topic", HTTPRequest(url: url, headers: try valid(change: set("apns-topic", nil)), body: body), 400, "MissingTopic"),
            ("no type", HTTPRequest(url: url, headers: try valid(change: set("apns-push-type", nil)), body: body),
             400, "InvalidPushType"),
            ("bad type", HTTPRequest(url: url, headers: try valid(change: set("apns-push-type", "silent")), body: body),
             400, "InvalidPushType"),
            ("background at 10", HTTPRequest(url: url, headers: try valid(change: set("apns-priority", "10")), body: body),
             400, "BadPriority"),
            ("background default 10", HTTPRequest(url: url, headers: try valid(change: set("apns-priority", nil)), body: body),
             400, "BadPriority"),
            ("priority 7", HTTPRequest(url: url, headers: try valid { set("apns-push-type", "alert")(&$0); set("apns-priority", "7")(&$0) },
                                       body: body), 400, "BadPriority"),
            ("expiration", HTTPRequest(url: url, headers: try valid(change: set("apns-expiration", "tomorrow")), body: body),
             400, "BadExpirationDate"),
            ("collapse id", HTTPRequest(url: url, headers: try valid(change: set("apns-collapse-id", String(repeating: "c", count: 65))),
                                        body: body), 400, "BadCollapseId"),
            ("apns-id", HTTPRequest(url: url, headers: try valid(change: set("apns-id", "not-a-uuid")), body: body),
             400, "BadMessageId"),
            ("duplicate", HTTPRequest(url: url, headers: try valid { $0.append(("apns-topic", "com.other")) }, body: body),
             400, "DuplicateHeaders"),
            ("4097 bytes", HTTPRequest(url: url, headers: try valid(), body: Data(repeating: 0x20, count: 4097)), 413, "PayloadTooLarge"),
            ("300 KB", HTTPRequest(url: url, headers: try valid(), body: Data(repeating: 0x20, count: 300_000)), 413, "PayloadTooLarge"),
            ("empty", HTTPRequest(url: url, headers: try valid()), 400, "PayloadEmpty"),
            ("not json", HTTPRequest(url: url, headers: try valid(), body: Data("aps=1".utf8)), 400, "BadPayload"),
            ("json array", HTTPRequest(url: url, headers: try valid(), body: Data("[1]".utf8)), 400, "BadPayload"),
        ]
        for (name, request, status, expected) in cases {
            let response = client.send(request)
            XCTAssertNil(response.transportError, name)
            XCTAssertEqual(response.status, status, name)
            XCTAssertEqual(reason(response), expected, name)
            XCTAssertNotNil(response.headers["apns-id"].flatMap(UUID.init(uuidString:)), name)
        }
        XCTAssertTrue(harness.standIn.pushes.isEmpty)

        let id = UUID()
        let accepted = client.send(HTTPRequest(url: url, headers: try valid(change: set("apns-id", id.uuidString.lowercased())),
                                               body: body))
        XCTAssertEqual(accepted.status, 200)
        XCTAssertEqual(accepted.headers["apns-id"], id.uuidString)
        XCTAssertTrue(accepted.body.isEmpty)
        XCTAssertEqual(harness.standIn.pushes.map(\.apnsId), [id])
        XCTAssertEqual(harness.standIn.statistics.requests, cases.count + 1)
    }

    func testGarbageNeverTakesTheStandInDown() throws {
        let harness = try Harness()
        let port = harness.standIn.port
        // 1. Plain-text garbage instead of a TLS ClientHello.
        try GarbageClient.sendRaw(Data("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + Data((0..<4096).map { UInt8($0 % 251) }),
                                  port: port)
        // 2. A connection that never says anything (it must not block anyone else).
        let silent = try GarbageClient.connect(port: port)
        defer { close(silent) }
        // 3. TLS without ALPN (an HTTP/1.1 client): closed, APNs speaks only HTTP/2.
        XCTAssertTrue(try GarbageClient.tls(port: port, alpn: nil, payload: Data("GET / HTTP/1.1\r\n\r\n".utf8)))
        XCTAssertTrue(try GarbageClient.tls(port: port, alpn: "http/1.1", payload: Data()))
        // 4. TLS with h2, then frames of garbage after the preface.
        var junk = Data("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        junk.append(Data([0x00, 0x00, 0x08, 0x09, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF]))
        junk.append(Data((0..<2000).map { UInt8(($0 * 7919) % 256) }))
        XCTAssertTrue(try GarbageClient.tls(port: port, alpn: "h2", payload: junk))

        // Still serving.
        XCTAssertTrue(harness.provider.send([Fixtures.silent(80)])[0].isDelivered)
        let statistics = harness.standIn.statistics
        XCTAssertEqual(statistics.failedHandshakes, 3, "plain garbage, no ALPN, http/1.1 only")
        XCTAssertEqual(statistics.tlsConnections, 2, "the h2 garbage connection and the provider's")
        XCTAssertEqual(statistics.accepted, 1)
    }

    func testOnPushHookReceivesEveryAcceptedPush() throws {
        var failures = APNsFailurePlan()
        failures.set(.unregistered(since: Date()), forToken: Fixtures.token(92))
        let harness = try Harness(failures: failures)
        let seen = Fixtures.PushLog()
        harness.standIn.onPush = { push in seen.append(push) }
        let alert = PushNotification.alert(deviceToken: Fixtures.token(91), topic: Fixtures.topic, environment: .sandbox,
                                           collapseId: "k", payload: Fixtures.alertPayload())
        let results = harness.provider.send([Fixtures.silent(90), alert, Fixtures.silent(92)])
        XCTAssertEqual(results.map(\.outcomeName), ["delivered", "delivered", "unregistered"])
        let pushes = seen.all.sorted { $0.deviceToken < $1.deviceToken }
        XCTAssertEqual(pushes.map(\.deviceToken), [Fixtures.token(90), Fixtures.token(91)], "refused pushes are not handed on")
        XCTAssertEqual(pushes.map(\.isSilent), [true, false])
        let local = try XCTUnwrap(pushes[0].jsonObject?["bk.local"] as? [String: Any])
        XCTAssertEqual(local["id"] as? String, "run_1/nudge")
        XCTAssertEqual(pushes.map(\.apnsId), results.prefix(2).compactMap(\.apnsId))
        harness.standIn.removeAllPushes()
        XCTAssertTrue(harness.standIn.pushes.isEmpty)
    }

    func testStoppedStandInRefusesConnections() throws {
        let harness = try Harness(configure: { $0.retry = APNsConfiguration.RetryPolicy(maximumAttempts: 2, initialDelay: 0.01) })
        XCTAssertTrue(harness.provider.send([Fixtures.silent(95)])[0].isDelivered)
        harness.standIn.stop()
        XCTAssertEqual(harness.standIn.statistics.openConnections, 0)
        let result = harness.provider.send([Fixtures.silent(96)])[0]
        guard case .failed(nil, _) = result.outcome else { return XCTFail("expected a connection failure, got \(result)") }
        XCTAssertEqual(result.attempts, 2)
    }

    func testCommandLineFailureRules() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let token = Fixtures.token(7)
        XCTAssertEqual(try APNsFailurePlan.parseRule("\(token)=410", now: now).rule, .unregistered(since: now))
        XCTAssertEqual(try APNsFailurePlan.parseRule("\(token)=400", now: now).rule, .badDeviceToken)
        XCTAssertEqual(try APNsFailurePlan.parseRule("\(token.uppercased())=500", now: now).token, token)
        XCTAssertEqual(try APNsFailurePlan.parseRule("\(token)=429x3", now: now).rule,
                       .failFirst(3, status: 429, reason: "TooManyRequests"))
        for bad in ["\(token)=404", "\(token)", "=500", "\(token)=500x0", "\(token)=500xx"] {
            XCTAssertThrowsError(try APNsFailurePlan.parseRule(bad, now: now), bad)
        }
    }
}
