import AMQPClient
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// What one client holding only its own credentials tries against the shared API and broker
/// (issue 12): it must get a clear refusal and nobody else may notice.
final class HostileInputIntegrationTests: APITestCase {
    override func prepare() throws {
        try pipeline.subscriber("u_1")
        try pipeline.subscriber("u_2")
    }

    /// Starts the API again with `change` applied to the default rate limits.
    func restartAPI(limits change: (inout RateLimits) -> Void) throws {
        api.shutdown()
        var limits = RateLimits()
        change(&limits)
        api = try APIHarness(rateLimits: limits)
        try pipeline.putLegDay()
        try prepare()
    }

    func deviceEvent(_ body: [String: Any], subscriber: String = "u_1", headers: [String: String]? = nil) -> APIHarness.Response {
        api.call("POST", "/v1/events", body: body, key: api.publishableKey, headers: headers ?? api.deviceHeaders(subscriber))
    }

    /// 130 × "é" is 130 characters but 260 bytes: the name would make a routing key over
    /// AMQP's 255 bytes. It is refused at once, and everyone else's events still get in.
    func testAnEventNameOverItsByteLimitIs400AtOnceAndIngestKeepsFlowing() {
        let started = Date()
        let refused = deviceEvent(["event": String(repeating: "é", count: 130), "subscriberId": "u_1"])
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.errorField, "event")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        let atLimit = deviceEvent(["event": String(repeating: "é", count: 100), "subscriberId": "u_1"])
        XCTAssertEqual(atLimit.status, 202, "200 bytes is the limit, and it fits")
        for n in 0..<20 {
            XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_2", "id": "ok-\(n)"], key: api.secretKey).status, 202)
        }
        XCTAssertEqual(api.call("GET", "/readyz").status, 200)
    }

    func testNULInAnyStringOfAnEventIs400() {
        for body: [String: Any] in [["event": "app\u{0}opened", "subscriberId": "u_1"],
                                    ["event": "app.opened", "subscriberId": "u_1", "id": "a\u{0}b"],
                                    ["event": "app.opened", "subscriberId": "u_1", "properties": ["a": ["b": ["c\u{0}"]]]],
                                    ["event": "app.opened", "subscriberId": "u_1", "properties": ["k\u{0}ey": 1]]] {
            let answer = deviceEvent(body)
            XCTAssertEqual(answer.status, 400, "\(body)")
            XCTAssertEqual(answer.errorCode, "invalid_value")
        }
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/acc-nul%00x", body: ["timezone": "UTC"], key: api.secretKey).status, 400)
    }

    /// An acknowledgment whose local id carries a step name longer than any workflow's (it
    /// would fail PostgreSQL's index) or an over-long message id is a 400, never a 500.
    func testAnOverLongLocalIdOrMessageIdIs400() {
        let runId = UUID().uuidString.lowercased()
        for properties: [String: Any] in [["localId": "\(runId)/" + String(repeating: "s", count: 5_000), "messageId": "m"],
                                          ["localId": "\(runId)/nudge", "messageId": String(repeating: "m", count: 5_000)]] {
            let answer = deviceEvent(["event": "$local.scheduled", "subscriberId": "u_1", "properties": properties])
            XCTAssertEqual(answer.status, 400)
        }
        XCTAssertEqual(deviceEvent(["event": "$local.scheduled", "subscriberId": "u_1",
                                    "properties": ["localId": "\(runId)/nudge", "messageId": "m"]]).status, 202)
    }

    /// Every made-up method counts as `other`: /metrics does not grow with them.
    func testMadeUpMethodsDoNotGrowTheMetrics() {
        for n in 0..<30 { _ = api.call("BREW\(n)", "/v1/events", key: api.secretKey) }
        let metrics = String(decoding: api.call("GET", "/metrics").data, as: UTF8.self)
        XCTAssertFalse(metrics.contains("BREW"), "no label value per made-up method")
        XCTAssertTrue(metrics.contains("method=\"other\""))
    }

    /// A device reusing the backend's event id (or another subscriber's) suppresses nothing:
    /// a device's ids are deduplicated in its own subscriber's space.
    func testADevicesEventIdCannotSuppressTheBackendsOrAnotherSubscribersEvent() throws {
        let at = RFC3339.format(Date().addingTimeInterval(600))
        XCTAssertEqual(deviceEvent(["id": "order-123", "event": "workout.scheduled", "subscriberId": "u_1", "properties": ["at": at, "workoutId": "d"]]).status, 202)
        XCTAssertEqual(deviceEvent(["id": "order-123", "event": "workout.scheduled", "subscriberId": "u_2", "properties": ["at": at, "workoutId": "e"]],
                                   subscriber: "u_2").status, 202)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["id": "order-123", "event": "workout.scheduled", "subscriberId": "u_1",
                                                             "properties": ["at": at, "workoutId": "b"]], key: api.secretKey).status, 202)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try self.api.pipeline.runs().count == 3 }, "three runs: nobody's event vanished")
        // The same device id again is still deduplicated within its own subscriber.
        XCTAssertEqual(deviceEvent(["id": "order-123", "event": "workout.scheduled", "subscriberId": "u_1", "properties": ["at": at, "workoutId": "d"]]).status, 202)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try api.pipeline.runs().count, 3)
    }

    /// A message over an AMQP limit is refused to its caller; the connection and every other
    /// publish go on (the broker would otherwise close the channel under all of them).
    func testThePublisherRefusesAnOverLongRoutingKeyAndKeepsTheConnection() async throws {
        let publisher = api.pipeline.publisher
        let exchange = api.pipeline.topology.eventsExchange
        let tenantId = api.pipeline.tenantId
        let good = { @Sendable (n: Int) in AMQPMessage(exchange: exchange, routingKey: "\(tenantId).app.opened",
                                                       body: Data("{\"event\":\"app.opened\",\"subscriberId\":\"u_1\",\"id\":\"g\(n)\"}".utf8)) }
        let bad = AMQPMessage(exchange: exchange, routingKey: String(repeating: "x", count: 300), body: Data("{}".utf8))
        let first = (0..<20).map(good)
        async let before: Void = publisher.publishBatch(first)
        do {
            try await publisher.publish(bad)
            XCTFail("an over-long routing key was published")
        } catch let error as AMQPError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("routing key has 300 bytes"), error.message)
        }
        try await before
        try await publisher.publishBatch((20..<40).map(good))
        XCTAssertTrue(publisher.isConnected)
    }

    func testOverTheSubscriberLimitADeviceGets429WithRetryAfterAndOthersAreNotSlowed() throws {
        try restartAPI {
            $0.subscriberPerSecond = 2
            $0.subscriberBurst = 5
        }
        // Sends until the first refusal: however slowly the calls go (a loaded CI machine), the
        // burst gets in and then no more than the bucket refilled over the time they took. One
        // token throughout, as a phone holds one: a token minted again in the next second is
        // another token, with a bucket of its own (the first request of a token the API has
        // not verified yet draws on the tenant's shared bucket: the + 1 below).
        let token = api.deviceHeaders("u_1")
        let started = Date()
        var accepted = 0
        var refusal: APIHarness.Response?
        while refusal == nil, accepted < 60 {
            let answer = deviceEvent(["event": "app.opened", "subscriberId": "u_1"], headers: token)
            if answer.status == 202 { accepted += 1 } else { refusal = answer }
        }
        let took = Date().timeIntervalSince(started)
        let limited = try XCTUnwrap(refusal, "60 events in \(took) s and none refused")
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.errorCode, "rate_limited")
        XCTAssertGreaterThanOrEqual(Int(limited.headers["retry-after"] ?? "") ?? 0, 1, "Retry-After says when to come back")
        XCTAssertGreaterThanOrEqual(accepted, 5, "the burst of 5 gets in")
        XCTAssertLessThanOrEqual(Double(accepted), 5 + 2 * took + 1, "past the burst, 2 a second (\(accepted) in \(took) s)")
        XCTAssertEqual(deviceEvent(["event": "app.opened", "subscriberId": "u_2"], subscriber: "u_2").status, 202, "another subscriber is not limited")
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_1"], key: api.secretKey).status, 202,
                       "the backend is not limited by a device's bucket")
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertEqual(deviceEvent(["event": "app.opened", "subscriberId": "u_1"], headers: token).status, 202, "the bucket refills")
    }

    /// One phone sends 1,000-event batches as fast as it can, from two threads, for three
    /// seconds: every such batch is `413`, its 100-event ones are held to the subscriber's 50
    /// events a second (burst 500), and meanwhile another subscriber's workout, scheduled by the
    /// backend, has its plan on the phone as quickly as without the flood.
    func testOnePhonesFloodOfBigBatchesIsHeldToItsEventsAndOrdinaryPlansStillArrive() throws {
        let token = try XCTUnwrap(try pipeline.subscriber("maya").first)
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var counts: [Int: Int] = [:]
            func add(_ key: Int) { lock.withLock { counts[key, default: 0] += 1 } }
        }
        let tally = Tally()
        let (harness, stop, group) = (api!, Date().addingTimeInterval(3), DispatchGroup())
        for thread in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var round = 0
                while Date() < stop {
                    let size = round % 2 == 0 ? 1000 : 100
                    let events = (0..<size).map { ["id": "t\(thread)-\(round)-\($0)", "event": "app.opened", "subscriberId": "u_1"] }
                    let status = harness.call("POST", "/v1/events", body: ["events": events], key: harness.publishableKey,
                                              headers: harness.deviceHeaders("u_1")).status
                    tally.add(size * 1000 + status)
                    round += 1
                }
            }
        }
        let scheduled = Date()
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "workout.scheduled", "subscriberId": "maya",
                                                             "properties": ["at": RFC3339.format(Date().addingTimeInterval(3600)), "workoutId": "w1"]],
                                key: api.secretKey).status, 202)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { !self.pipeline.pushes(to: token).isEmpty }, "the plan arrived during the flood")
        let planTook = Date().timeIntervalSince(scheduled)
        group.wait()
        let statuses = tally.lock.withLock { tally.counts }
        XCTAssertGreaterThan(statuses[1000 * 1000 + 413] ?? 0, 10, "1,000-event batches are refused: \(statuses)")
        XCTAssertEqual(statuses[1000 * 1000 + 202] ?? 0, 0)
        let acceptedBatches = statuses[100 * 1000 + 202] ?? 0
        XCTAssertGreaterThan(statuses[100 * 1000 + 429] ?? 0, 0, "past the burst, 100-event batches wait: \(statuses)")
        XCTAssertLessThanOrEqual(acceptedBatches * 100, 500 + 50 * 4, "at most the burst and 50 a second got in: \(statuses)")
        XCTAssertLessThan(planTook, 2, "the other subscriber's plan was not held up")
    }

    /// Made-up keys cost PostgreSQL a bounded number of lookups; the real key keeps working.
    func testAFloodOfUnknownKeysIsAnsweredFromMemoryAndTheRealKeyStillWorks() throws {
        try restartAPI {
            $0.keyLookupsPerSecond = 5
            $0.keyLookupBurst = 10
        }
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_1"], key: api.secretKey).status, 202)
        var statuses: [Int: Int] = [:]
        for n in 0..<200 {
            let key = "sk_\(String(format: "%016x", n))_\(String(repeating: "0", count: 64))"
            statuses[api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_1"], key: key).status, default: 0] += 1
        }
        XCTAssertEqual(Set(statuses.keys).subtracting([401, 429]), [], "\(statuses)")
        XCTAssertLessThanOrEqual(statuses[401] ?? 0, 30, "at most the lookup budget reached PostgreSQL: \(statuses)")
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_1"], key: api.secretKey).status, 202)
        // The same unknown key again is answered from memory, not from the budget.
        let repeated = "sk_00000000000000aa_\(String(repeating: "0", count: 64))"
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(api.call("GET", "/v1/settings", key: repeated).status, 401)
        XCTAssertEqual((0..<50).map { _ in api.call("GET", "/v1/settings", key: repeated).status }, Array(repeating: 401, count: 50))
    }

    /// Device hygiene: only APNs tokens (64 hex digits), and at most 10 active devices a
    /// subscriber; registering an eleventh turns the least recently registered inactive.
    func testDeviceTokensMustBeAPNsTokensAndDevicesPerSubscriberAreCapped() throws {
        let register = { (token: String) in
            self.api.call("PUT", "/v1/subscribers/u_9/devices", body: ["platform": "ios", "token": token, "topic": "com.example.gym"], key: self.api.secretKey)
        }
        XCTAssertEqual(register(String(repeating: "ab", count: 8)).status, 400, "16 digits is not an APNs token")
        XCTAssertEqual(register(String(repeating: "٣", count: 64)).status, 400, "Arabic-Indic digits are not hex")
        let tokens = (0..<11).map { String(format: "%064x", 0xabc000 + $0) }
        for token in tokens {
            XCTAssertEqual(register(token).status, 200)
            Thread.sleep(forTimeInterval: 0.01)
        }
        let devices = try api.pipeline.pool.withConnection { db in
            try db.query("SELECT token, active, inactive_reason FROM devices WHERE subscriber_id = 'u_9'").map {
                (try $0.decode("token", as: String.self), try $0.decode("active", as: Bool.self), try $0.decode("inactive_reason", as: String?.self))
            }
        }
        XCTAssertEqual(devices.count, 11)
        XCTAssertEqual(devices.filter(\.1).count, 10)
        let inactive = devices.filter { !$0.1 }
        XCTAssertEqual(inactive.map(\.0), [tokens[0]], "the least recently registered one")
        XCTAssertEqual(inactive.first?.2, "device limit")
    }

    /// Subscriber tokens must be short-lived: one valid for years is refused, as are forged,
    /// expired and malformed ones.
    func testForgedExpiredMalformedAndOverLongLivedTokensAre401() {
        let secret = api.pipeline.credentials.signingSecret
        func token(_ subscriber: String, expiresIn seconds: TimeInterval, secret: String) -> String {
            let expiresAt = Int(Date().timeIntervalSince1970 + seconds)
            return TenantCredentials.subscriberToken(signingSecret: secret, subscriberId: subscriber, expiresAt: expiresAt)
        }
        let cases: [(String, String)] = [
            ("v1.99999999999.\(String(repeating: "ab", count: 32))", "invalid_subscriber_token"),
            (token("u_1", expiresIn: 400 * 86_400, secret: secret), "invalid_subscriber_token"),
            (token("u_1", expiresIn: -10, secret: secret), "expired_subscriber_token"),
            (token("u_1", expiresIn: 3600, secret: "not the tenant's"), "invalid_subscriber_token"),
            (token("u_2", expiresIn: 3600, secret: secret), "invalid_subscriber_token"),
            ("v1.abc.def", "invalid_subscriber_token"),
        ]
        for (value, code) in cases {
            let answer = api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_1"], key: api.publishableKey,
                                  headers: ["X-BuzzKit-Subscriber-Token": value])
            XCTAssertEqual(answer.status, 401, value)
            XCTAssertEqual(answer.errorCode, code, value)
        }
        XCTAssertEqual(deviceEvent(["event": "app.opened", "subscriberId": "u_1"]).status, 202)
    }

    /// A tenant names its apps; a device registering for another app's topic is refused.
    func testDevicesMayOnlyRegisterForTheTenantsOwnApps() throws {
        let token = String(repeating: "cd", count: 32)
        let register = { (topic: String) in
            self.api.call("PUT", "/v1/subscribers/u_1/devices", body: ["platform": "ios", "token": token, "topic": topic], key: self.api.secretKey)
        }
        XCTAssertEqual(register("com.other.app").status, 200, "no list yet: any topic")
        let set = api.call("PUT", "/v1/settings", body: ["allowedTopics": ["com.example.gym"]], key: api.secretKey)
        XCTAssertEqual(set.status, 200)
        XCTAssertEqual(set.object["allowedTopics"] as? [String], ["com.example.gym"])
        XCTAssertNotNil(set.object["defaultTimezone"] as? String, "the other settings are kept")
        Thread.sleep(forTimeInterval: 0.1)
        let refused = register("com.other.app")
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.errorField, "topic")
        XCTAssertEqual(register("com.example.gym").status, 200)
        XCTAssertEqual(api.call("PUT", "/v1/settings", body: ["allowedTopics": ["a\u{0}b"]], key: api.secretKey).status, 400)
    }
}
