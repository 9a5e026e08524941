import BuzzAPI
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import HTTPServer
import PushDelivery
import XCTest

/// The console's files and routes over the in-memory pipeline (``InMemoryAPITestCase``): what
/// support sees of Maya's and Ola's reminders, and what the browser is allowed to run.
final class ConsoleAPITests: InMemoryAPITestCase {
    /// Maya's phone acknowledges its plan, Ola's never does; both reach 07:00 Berlin.
    private func mayaAndOlaAtTheMoment() async throws -> (maya: String, ola: String, mayasPhone: String) {
        try await putLegDay()
        for subscriber in ["maya", "ola"] { try await call("PUT", "/v1/subscribers/\(subscriber)", ["timezone": "Europe/Berlin"], expect: 200) }
        let mayasPhone = try await phone("maya"), olasPhone = try await phone("ola")
        var runs: [String: String] = [:]
        for subscriber in ["maya", "ola"] {
            try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": subscriber], expect: 202)
        }
        try workers.runUntilIdle()
        for (subscriber, token) in [("maya", mayasPhone), ("ola", olasPhone)] {
            let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: try XCTUnwrap(pushes(to: token, .background).first).payload).local
            runs[subscriber] = String(plan.id.prefix { $0 != "/" })
            guard subscriber == "maya" else { continue }
            try await call("POST", "/v1/events", ["event": "$local.scheduled", "subscriberId": "maya", "timestamp": RFC3339.format(clock.now),
                                                  "properties": ["localId": plan.id, "messageId": plan.messageId, "device": token]],
                           device: "maya", expect: 202)
        }
        try workers.runUntilIdle()
        clock.advance(by: 21 * 3600 + 60)
        try workers.runUntilIdle()
        try workers.runUntilIdle()
        return (try XCTUnwrap(runs["maya"]), try XCTUnwrap(runs["ola"]), mayasPhone)
    }

    func testARunsTimelineShowsEachDevicesAcknowledgmentTheDecisionAndTheSubscribersZone() async throws {
        let (maya, ola, mayasPhone) = try await mayaAndOlaAtTheMoment()
        let timeline = try await call("GET", "/v1/runs/\(maya)/timeline", expect: 200).object
        XCTAssertEqual(timeline["timezone"] as? String, "Europe/Berlin", "times are shown in the subscriber's zone")
        XCTAssertEqual((timeline["trigger"] as? [String: Any])?["event"] as? String, "workout.scheduled")
        let devices = try XCTUnwrap(timeline["devices"] as? [[String: Any]])
        XCTAssertEqual(devices.count, 1)
        XCTAssertEqual(devices.first?["tokenSuffix"] as? String, String(mayasPhone.suffix(8)), "the device by its token's last 8 digits only")
        XCTAssertNotNil(devices.first?["scheduledAt"] as? String)
        XCTAssertEqual(devices.first?["counts"] as? Bool, true)
        let local = ((timeline["run"] as? [String: Any])?["steps"] as? [[String: Any]])?.compactMap { $0["local"] as? [String: Any] }.first
        XCTAssertEqual((local?["fallback"] as? [String: Any])?["sent"] as? Bool, false, "acknowledged: no fallback")

        let olas = try await call("GET", "/v1/runs/\(ola)/timeline", expect: 200).object
        XCTAssertEqual((olas["devices"] as? [Any])?.count, 0, "Ola's phone said nothing")
        let steps = try XCTUnwrap((olas["run"] as? [String: Any])?["steps"] as? [[String: Any]])
        let kinds = steps.flatMap { ($0["deliveries"] as? [[String: Any]]) ?? [] }.compactMap { $0["kind"] as? String }
        XCTAssertEqual(kinds, ["plan", "fallback"], "the plan, then the fallback at the moment")

        // Another tenant's key finds nothing of it.
        let other = try InMemoryDirectory(store: store).createTenant(name: "other")
        let request = HTTPRequest(method: "GET", path: "/v1/runs/\(maya)/timeline", headers: ["Authorization": "Bearer " + other.secretKey], body: Data())
        let answer = await api.handle(request)
        XCTAssertEqual(answer.status, 404)
    }

    func testHealthCountsTheLastHoursWindowsAndPushesByMinute() async throws {
        _ = try await mayaAndOlaAtTheMoment()
        let health = try await call("GET", "/v1/health", expect: 200).object
        let minutes = try XCTUnwrap(health["minutes"] as? [[String: Any]])
        XCTAssertEqual(minutes.count, 60, "every minute of the last hour, zeros included")
        XCTAssertEqual(minutes.map { $0["acknowledged"] as? Int ?? 0 }.reduce(0, +), 1, "Maya's window")
        XCTAssertEqual(minutes.map { $0["fallback"] as? Int ?? 0 }.reduce(0, +), 1, "Ola's window")
        let sent = minutes.compactMap { $0["sent"] as? [String: Int] }
        XCTAssertEqual(sent.map { $0["fallback"] ?? 0 }.reduce(0, +), 1)
        XCTAssertEqual(sent.map { $0["plan"] ?? 0 }.reduce(0, +), 0, "the plans went out 21 hours ago, outside the hour")
        XCTAssertEqual(health["brokerAnswered"] as? Bool, false, "no broker behind the in-memory API: depths unknown, said so")
    }

    func testAWorkflowsVersionsStayListedAfterItIsRetired() async throws {
        try await putLegDay()
        try await putLegDay()
        var history = try await call("GET", "/v1/workflows/leg-day/versions", expect: 200).object
        XCTAssertEqual(history["current"] as? Int, 2)
        XCTAssertEqual((history["versions"] as? [[String: Any]])?.map { $0["version"] as? Int }, [2, 1], "newest first")
        XCTAssertNotNil((history["versions"] as? [[String: Any]])?.first?["definition"] as? [String: Any])
        try await call("DELETE", "/v1/workflows/leg-day", expect: 204)
        history = try await call("GET", "/v1/workflows/leg-day/versions", expect: 200).object
        XCTAssertTrue(history["current"] is NSNull, "retired: current is null")
        XCTAssertEqual((history["versions"] as? [Any])?.count, 2)
        try await call("GET", "/v1/workflows/nothing/versions", expect: 404)
    }

    func testDeadLettersNeedABrokerAndAKnownQueue() async throws {
        try await call("GET", "/v1/dead-letters/trigger", expect: 503)
        try await call("GET", "/v1/dead-letters/..%2ftrigger", expect: 404)
        try await call("POST", "/v1/dead-letters/nope/replay", expect: 404)
        try await call("GET", "/v1/dead-letters/trigger", device: "maya", expect: 403)
    }

    /// A dead-lettered cancel carries its recipients' whole tokens; the console shows the last 8.
    func testADeadLettersDeviceTokensAreShownByTheirLastEightDigits() async throws {
        struct OneLetter: DeadLetterSource {
            let token: String
            func list(_ queue: Topology.Queue, tenantId: String, limit: Int) throws -> [DeadLetters.Letter] {
                [DeadLetters.Letter(messageId: "m-1", routingKey: "plan-dispatch", reason: "boom",
                                    body: Data(#"{"sendCancel":{"tenantId":"\#(tenantId)","recipients":[{"token":"\#(token)"}]}}"#.utf8))]
            }
            func replay(_ queue: Topology.Queue, tenantId: String) throws -> Int { 0 }
        }
        let token = String(repeating: "ab12", count: 16)
        let context = PipelineContext(store: store, topology: Topology(), push: push, clock: clock)
        api = APIRoutes(directory: InMemoryDirectory(store: store), commands: RunCommands(context: context, broker: broker, outbox: InMemoryOutbox(store: store)),
                        broker: broker, topology: Topology(), metrics: context.metrics, clock: clock, log: context.log, deadLetters: OneLetter(token: token))
        let listed = try await call("GET", "/v1/dead-letters/plan-dispatch", expect: 200).object
        let body = try XCTUnwrap((listed["letters"] as? [[String: Any]])?.first?["body"] as? String)
        XCTAssertFalse(body.contains(token), body)
        XCTAssertTrue(body.contains("\"token\":\"…" + token.suffix(8) + "\""), body)
        XCTAssertTrue(body.contains("sendCancel"), "the rest of the body as it was")
    }

    func testTheConsoleIsServedWithAStrictPolicyAndOnlyItsOwnFiles() async throws {
        let page = await api.handle(HTTPRequest(method: "GET", path: "/console", headers: [:], body: Data()))
        XCTAssertEqual(page.status, 200)
        let headers = Dictionary(page.headers, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        let policy = try XCTUnwrap(headers["Content-Security-Policy"])
        XCTAssertTrue(policy.contains("script-src 'self'") && policy.contains("default-src 'none'") && !policy.contains("unsafe"), policy)
        XCTAssertEqual(headers["X-Content-Type-Options"], "nosniff")
        for name in ["console.js", "runs.js", "directory.js", "health.js", "console.css"] {
            let file = await api.handle(HTTPRequest(method: "GET", path: "/console/\(name)", headers: [:], body: Data()))
            XCTAssertEqual(file.status, 200, name)
            XCTAssertTrue(String(decoding: page.body, as: UTF8.self).contains("/console/\(name)"), "index.html loads \(name)")
            // Untrusted text never becomes markup: no API of the page that parses HTML or code.
            let source = String(decoding: file.body, as: UTF8.self)
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                XCTAssertFalse(source.contains(sink), "\(name) uses \(sink)")
            }
        }
        XCTAssertFalse(String(decoding: page.body, as: UTF8.self).contains("<script>"), "no inline script (the policy would refuse it)")
        for path in ["/console/..%2f..%2fPackage.swift", "/console/Package.swift", "/console/nope.js"] {
            let response = await api.handle(HTTPRequest(method: "GET", path: path, headers: [:], body: Data()))
            XCTAssertEqual(response.status, 404, path)
        }
    }
}
