import BuzzAPI
import BuzzKitWire
import BuzzServer
import Foundation
import BuzzTesting
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class APIIntegrationTests: XCTestCase {
    var api: APIHarness!

    override func setUpWithError() throws { api = try APIHarness() }
    override func tearDown() { api?.shutdown() }

    let legDay = LegDay.object()

    func setUpLegDay(key: String? = nil) {
        let key = key ?? api.secretKey
        XCTAssertEqual(api.call("PUT", "/v1/workflows/leg-day", body: legDay, key: key).status, 200)
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/u_1", body: ["timezone": "Europe/Berlin", "properties": ["plan": "pro"]], key: key).status, 200)
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/u_1/devices", body: ["platform": "ios", "token": String(repeating: "ab", count: 32),
                                                                              "topic": "com.example.gym", "environment": "sandbox"], key: key).status, 200)
    }

    func testEventsStartRunsAndTheRunSummaryFollowsTheContract() throws {
        setUpLegDay()
        let accepted = api.call("POST", "/v1/events", body: ["event": "workout.scheduled", "subscriberId": "u_1", "id": "evt-1"], key: api.secretKey)
        XCTAssertEqual(accepted.status, 202)
        XCTAssertEqual(accepted.object["accepted"] as? Int, 1)
        let run = try XCTUnwrap(try api.pipeline.waitForRun { $0.state.summary.steps.last?.local?.planSentTo == 1 })
        let summary = api.call("GET", "/v1/runs/\(run.id.uuidString.lowercased())", key: api.secretKey)
        XCTAssertEqual(summary.status, 200)
        let object = summary.object
        XCTAssertEqual(object["workflow"] as? String, "leg-day")
        XCTAssertEqual(object["status"] as? String, "waiting")
        XCTAssertEqual(object["dryRun"] as? Bool, false)
        let steps = try XCTUnwrap(object["steps"] as? [[String: Any]])
        let local = try XCTUnwrap(steps.last?["local"] as? [String: Any])
        for key in ["localId", "moment", "fireAt", "shiftedByQuietHours", "planSentTo", "acknowledged", "acknowledgedAt", "fallback"] {
            XCTAssertTrue(local.keys.contains(key), "local.\(key) is in the summary")
        }
        XCTAssertEqual(local["planSentTo"] as? Int, 1)
        // The same client event id again starts nothing new.
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "workout.scheduled", "subscriberId": "u_1", "id": "evt-1"], key: api.secretKey).status, 202)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try api.pipeline.runs().count, 1)
    }

    func testBatchesAreLimitedTo1000Events() {
        let event: [String: Any] = ["event": "page.viewed", "subscriberId": "u_9"]
        let ok = api.call("POST", "/v1/events", body: ["events": Array(repeating: event, count: 1000)], key: api.secretKey)
        XCTAssertEqual(ok.status, 202)
        XCTAssertEqual(ok.object["accepted"] as? Int, 1000)
        let tooMany = api.call("POST", "/v1/events", body: ["events": Array(repeating: event, count: 1001)], key: api.secretKey)
        XCTAssertEqual(tooMany.status, 413)
        XCTAssertEqual(tooMany.errorCode, "too_many_events")
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["events": []], key: api.secretKey).status, 400)
    }

    func testBadInputGetsTheRight4xxWithAFieldToFix() {
        let key = api.secretKey
        let cases: [(String, String, Data?, [String: String], Int, String, String?)] = [
            ("POST", "/v1/events", Data("{\"event\": ".utf8), [:], 400, "invalid_json", nil),
            ("POST", "/v1/events", Data([0x7b, 0xff, 0xfe, 0x7d]), [:], 400, "invalid_utf8", nil),
            ("POST", "/v1/events", Data(), [:], 400, "empty_body", nil),
            ("POST", "/v1/events", json(["event": 42, "subscriberId": "u"]), [:], 400, "invalid_type", "event"),
            ("POST", "/v1/events", json(["event": "a.b"]), [:], 400, "missing_field", "subscriberId"),
            ("POST", "/v1/events", json(["event": "a.b", "subscriberId": "u", "colour": "red"]), [:], 400, "unknown_field", "colour"),
            ("POST", "/v1/events", json(["event": "a.b", "subscriberId": "u", "timestamp": "yesterday"]), [:], 400, "invalid_value", "timestamp"),
            ("POST", "/v1/events", json(["event": "a.b", "subscriberId": "u", "properties": [1, 2]]), [:], 400, "invalid_type", "properties"),
            ("POST", "/v1/events", json(["events": [["event": "a", "subscriberId": "u"], ["event": "b"]]]), [:], 400, "missing_field", "events[1].subscriberId"),
            ("POST", "/v1/events", json(["event": "$secret.thing", "subscriberId": "u"]), [:], 400, "invalid_value", "event"),
            ("POST", "/v1/events", Data(repeating: 0x20, count: 1_100_000), [:], 413, "body_too_large", nil),
            ("PUT", "/v1/subscribers/u_1", json(["timezone": "Mars/Olympus"]), [:], 400, "unknown_timezone", "timezone"),
            ("PUT", "/v1/subscribers/u_1/devices", json(["platform": "android", "token": "ab", "topic": "t"]), [:], 400, "invalid_value", "platform"),
            ("PUT", "/v1/settings", json(["defaultTimezone": "Nowhere/Land"]), [:], 400, "unknown_timezone", "defaultTimezone"),
            ("PUT", "/v1/settings", json(["quietHours": ["start": "22:00", "end": "25:00"]]), [:], 400, "invalid_value", "quietHours"),
            ("GET", "/v1/workflows/nope", nil, [:], 404, "not_found", nil),
            ("POST", "/v1/workflows/nope/trigger", json(["subscriberId": "u"]), [:], 404, "not_found", nil),
            ("GET", "/v1/runs/not-a-uuid", nil, [:], 404, "not_found", nil),
            ("GET", "/v1/runs/\(UUID().uuidString)", nil, [:], 404, "not_found", nil),
            ("DELETE", "/v1/events", nil, [:], 405, "method_not_allowed", nil),
        ]
        for (method, path, body, headers, status, code, field) in cases {
            let response = api.call(method, path, raw: body, key: key, headers: headers)
            XCTAssertEqual(response.status, status, "\(method) \(path) \(String(decoding: (body ?? Data()).prefix(60), as: UTF8.self))")
            XCTAssertEqual(response.errorCode, code, "\(method) \(path)")
            if let field { XCTAssertEqual(response.errorField, field, "\(method) \(path)") }
        }
        XCTAssertEqual(api.call("GET", "/v1/settings").status, 401)
        XCTAssertEqual(api.call("GET", "/v1/settings", key: "sk_abc_def").errorCode, "invalid_key")
        XCTAssertEqual(api.call("GET", "/v1/settings", key: "not-a-key").errorCode, "invalid_key")
        XCTAssertEqual(api.call("GET", "/healthz").status, 200, "still answering")
    }

    func json(_ object: Any) -> Data { try! JSONSerialization.data(withJSONObject: object) }

    func testWorkflowsAreValidatedAndVersioned() {
        var invalid = legDay
        invalid["steps"] = [["name": "a", "waitUntil": ["time": "25:00", "timezone": "subscriber"]],
                            ["name": "a", "send": ["deliver": "loca", "title": "t", "body": "b"]]]
        let refused = api.call("PUT", "/v1/workflows/leg-day", body: invalid, key: api.secretKey)
        XCTAssertEqual(refused.status, 422)
        let problems = ((refused.object["error"] as? [String: Any])?["problems"] as? [[String: String]]) ?? []
        XCTAssertEqual(Set(problems.compactMap { $0["field"] }), ["steps[0].waitUntil.time", "steps[1].name", "steps[1].send.deliver"])
        XCTAssertEqual(api.call("PUT", "/v1/workflows/leg-day", body: legDay, key: api.secretKey).object["version"] as? Int, 1)
        var changed = legDay
        changed["cancelOn"] = []
        XCTAssertEqual(api.call("PUT", "/v1/workflows/leg-day", body: changed, key: api.secretKey).object["version"] as? Int, 2)
        let current = api.call("GET", "/v1/workflows/leg-day", key: api.secretKey)
        XCTAssertEqual(current.object["version"] as? Int, 2)
        XCTAssertEqual(((current.object["definition"] as? [String: Any])?["cancelOn"] as? [Any])?.count, 0)
        var mismatched = legDay
        mismatched["key"] = "other"
        XCTAssertEqual(api.call("PUT", "/v1/workflows/leg-day", body: mismatched, key: api.secretKey).errorCode, "key_mismatch")
    }

    func testSettingsRoundTrip() {
        XCTAssertEqual(api.call("GET", "/v1/settings", key: api.secretKey).object["quietHours"] as? NSNull, NSNull())
        let put = api.call("PUT", "/v1/settings", body: ["quietHours": ["start": "22:00", "end": "07:00"], "defaultTimezone": "America/New_York"], key: api.secretKey)
        XCTAssertEqual(put.status, 200)
        let got = api.call("GET", "/v1/settings", key: api.secretKey).object
        XCTAssertEqual(got["defaultTimezone"] as? String, "America/New_York")
        XCTAssertEqual((got["quietHours"] as? [String: String])?["start"], "22:00")
        XCTAssertEqual(api.call("PUT", "/v1/settings", body: ["quietHours": NSNull()], key: api.secretKey).object["quietHours"] as? NSNull, NSNull())
    }

    func testTriggerDryRunAndCentralCancel() throws {
        setUpLegDay()
        let trigger = api.call("POST", "/v1/workflows/leg-day/trigger", body: ["subscriberId": "u_1", "dryRun": true, "properties": [:]], key: api.secretKey)
        XCTAssertEqual(trigger.status, 201)
        let runId = try XCTUnwrap(trigger.object["runId"] as? String)
        let summary = api.call("GET", "/v1/runs/\(runId)", key: api.secretKey).object
        XCTAssertEqual(summary["dryRun"] as? Bool, true)
        let cancel = api.call("POST", "/v1/runs/\(runId)/cancel", key: api.secretKey)
        XCTAssertEqual(cancel.status, 200)
        XCTAssertEqual(cancel.object["status"] as? String, "cancelled")
        XCTAssertEqual((cancel.object["cancelled"] as? [String: Any])?["by"] as? String, "api")
        XCTAssertTrue(api.pipeline.push.sent.isEmpty, "a dry run sends nothing, its cancel neither")
    }

    func testDevicesActOnlyForTheirOwnSubscriber() {
        setUpLegDay()
        let credentials = api.pipeline.credentials
        let expires = Int(Date().timeIntervalSince1970) + 3600
        let token = TenantCredentials.subscriberToken(signingSecret: credentials.signingSecret, subscriberId: "u_1", expiresAt: expires)
        let device = ["X-BuzzKit-Subscriber-Token": token]
        let pk = credentials.publishableKey
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_1"], key: pk, headers: device).status, 202)
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/u_1/devices", body: ["platform": "ios", "token": String(repeating: "cd", count: 32), "topic": "t"],
                                key: pk, headers: device).status, 200)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_2"], key: pk, headers: device).status, 401)
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/u_2/devices", body: ["platform": "ios", "token": String(repeating: "cd", count: 32), "topic": "t"],
                                key: pk, headers: device).status, 401)
        XCTAssertEqual(api.call("GET", "/v1/settings", key: pk, headers: device).status, 403)
        XCTAssertEqual(api.call("PUT", "/v1/workflows/leg-day", body: legDay, key: pk, headers: device).status, 403)
        let expired = TenantCredentials.subscriberToken(signingSecret: credentials.signingSecret, subscriberId: "u_1", expiresAt: expires - 7200)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "a", "subscriberId": "u_1"], key: pk, headers: ["X-BuzzKit-Subscriber-Token": expired]).errorCode,
                       "expired_subscriber_token")
        let forged = TenantCredentials.subscriberToken(signingSecret: "guess", subscriberId: "u_1", expiresAt: expires)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "a", "subscriberId": "u_1"], key: pk, headers: ["X-BuzzKit-Subscriber-Token": forged]).status, 401)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "a", "subscriberId": "u_1"], key: pk).errorCode, "missing_subscriber_token")
    }

    func testOneTenantCannotReadChangeOrTriggerAnother() throws {
        setUpLegDay()
        let other = try api.pipeline.directory.createTenant(name: "rival")
        let trigger = api.call("POST", "/v1/workflows/leg-day/trigger", body: ["subscriberId": "u_1", "dryRun": true], key: api.secretKey)
        let runId = try XCTUnwrap(trigger.object["runId"] as? String)
        XCTAssertEqual(api.call("GET", "/v1/runs/\(runId)", key: other.secretKey).status, 404)
        XCTAssertEqual(api.call("POST", "/v1/runs/\(runId)/cancel", key: other.secretKey).status, 404)
        XCTAssertEqual(api.call("GET", "/v1/workflows/leg-day", key: other.secretKey).status, 404)
        XCTAssertEqual(api.call("POST", "/v1/workflows/leg-day/trigger", body: ["subscriberId": "u_1"], key: other.secretKey).status, 404)
        // A rival's subscriber token does not work with our publishable key, nor the reverse.
        let rivalToken = TenantCredentials.subscriberToken(signingSecret: other.signingSecret, subscriberId: "u_1", expiresAt: Int(Date().timeIntervalSince1970) + 60)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "a", "subscriberId": "u_1"], key: api.pipeline.credentials.publishableKey,
                                headers: ["X-BuzzKit-Subscriber-Token": rivalToken]).status, 401)
        // Events of the rival go to the rival's tenant: they start no run of ours.
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "workout.scheduled", "subscriberId": "u_1"], key: other.secretKey).status, 202)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try api.pipeline.runs().count, 1, "only our own dry run")
        XCTAssertEqual(api.call("GET", "/v1/runs/\(runId)", key: api.secretKey).object["status"] as? String, "waiting")
    }

    func testHealthReadinessAndMetrics() {
        XCTAssertEqual(api.call("GET", "/healthz").status, 200)
        // Ready once its publisher has connected to RabbitMQ (it starts connecting at launch).
        XCTAssertTrue(TestServices.eventually(timeout: 10) { self.api.call("GET", "/readyz").status == 200 })
        _ = api.call("GET", "/v1/settings", key: api.secretKey)
        let metrics = String(decoding: api.call("GET", "/metrics").data, as: UTF8.self)
        XCTAssertTrue(metrics.contains(#"buzzkit_queue_messages{queue="\#(api.pipeline.topology.name(.trigger))"}"#), metrics.prefix(400).description)
        XCTAssertTrue(metrics.contains(#"buzzkit_queue_consumers{queue="\#(api.pipeline.topology.name(.fallbackCheck))"} 1"#), "one worker consumes fallback-check")
        // Requests are counted when libmicrohttpd reports them complete, just after the answer.
        XCTAssertTrue(TestServices.eventually(timeout: 3) {
            String(decoding: self.api.call("GET", "/metrics").data, as: UTF8.self)
                .contains(#"buzzkit_http_requests_total{method="GET",route="/v1/settings",status="200"} 1"#)
        })
        XCTAssertTrue(metrics.contains("buzzkit_http_request_seconds_bucket"))
    }

    func testFuzzedBodiesNeverBreakTheServer() {
        var generator = SystemRandomNumberGenerator()
        let seeds: [Data] = [json(["event": "a.b", "subscriberId": "u", "properties": ["x": [1, 2, ["y": nil as Any?]]]]), json(legDay)]
        var statuses: [Int: Int] = [:]
        for round in 0..<150 {
            var body: Data
            if round % 3 == 0 {
                body = Data((0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            } else {
                body = seeds[round % 2]
                for _ in 0..<Int.random(in: 1...6, using: &generator) where !body.isEmpty {
                    let i = Int.random(in: 0..<body.count, using: &generator)
                    switch Int.random(in: 0...2, using: &generator) {
                    case 0: body[i] = UInt8.random(in: 0...255, using: &generator)
                    case 1: body.remove(at: i)
                    default: body.insert(Array("\"{[]},:0".utf8).randomElement(using: &generator)!, at: i)
                    }
                }
            }
            let path = round % 2 == 0 ? "/v1/events" : "/v1/workflows/fuzz"
            let response = api.call(round % 2 == 0 ? "POST" : "PUT", path, raw: body, key: api.secretKey)
            statuses[response.status, default: 0] += 1
            XCTAssertTrue((200..<500).contains(response.status), "\(path) answered \(response.status) to \(body.prefix(80) as NSData)")
            if response.status >= 400 { XCTAssertNotNil(response.errorCode, "errors are JSON") }
        }
        XCTAssertEqual(api.call("GET", "/healthz").status, 200)
        XCTAssertGreaterThan(statuses.filter { $0.key >= 400 }.values.reduce(0, +), 50, "most mutations are refused")
    }
}

final class APIBrokerOutageTests: XCTestCase {
    func testEventsGet503WhenTheBrokerIsUnreachableAndNothingIsHalfAccepted() throws {
        let schema = TestServices.uniqueName("apidown")
        let pool = try TestServices.migratedPool(schema: schema)
        defer { pool.close(); TestServices.dropSchema(schema) }
        let credentials = try PostgresDirectory(pool: pool).createTenant(name: "down")
        var configuration = Configuration()
        configuration.databaseURL = TestServices.databaseURL
        configuration.databaseSchema = schema
        configuration.amqpURL = "amqp://guest:guest@127.0.0.1:1/%2f"
        let runtime = try Runtime(configuration: configuration, push: UnusedPush(), component: "api-down", topology: Topology(prefix: schema + "."), failFastPublishes: true)
        let server = APIServer(runtime: runtime, host: "127.0.0.1", port: 0)
        try server.start()
        defer { server.stop(grace: 1); runtime.pool.close() }
        Thread.sleep(forTimeInterval: 0.5)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/events")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"event":"a.b","subscriberId":"u"}"#.utf8)
        request.setValue("Bearer \(credentials.secretKey)", forHTTPHeaderField: "Authorization")
        let started = Date()
        let done = DispatchSemaphore(value: 0)
        let box = ResponseBox()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.set(.init(status: (response as? HTTPURLResponse)?.statusCode ?? 0, data: data ?? Data()))
            done.signal()
        }.resume()
        done.wait()
        XCTAssertEqual(box.value?.status, 503)
        XCTAssertEqual(box.value?.errorCode, "broker_unavailable")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "answered quickly")
        var ready = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/readyz")!)
        ready.httpMethod = "GET"
        let readyDone = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: ready) { _, response, _ in
            box.set(.init(status: (response as? HTTPURLResponse)?.statusCode ?? 0, data: Data()))
            readyDone.signal()
        }.resume()
        readyDone.wait()
        XCTAssertEqual(box.value?.status, 503)
    }
}

import PushDelivery
struct UnusedPush: PushProvider {
    func send(_ batch: [PushNotification]) -> [PushResult] {
        batch.map { _ in PushResult(outcome: .failed(status: nil, reason: "not used"), apnsId: nil, status: nil, attempts: 0) }
    }
}
