import AMQPClient
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// Every route and the AMQP ingest, fed what a hostile or broken client sends, while a steady
/// stream of ordinary events goes on: each hostile request gets a 4xx (never a 5xx, never a
/// hang), each hostile message is dead-lettered with its reason, and every ordinary event is
/// accepted and its plan reaches the phone.
final class HostileSweepIntegrationTests: APITestCase {
    static let routes: [(method: String, path: String, body: Bool)] = [
        ("PUT", "/v1/subscribers/{s}/devices", true), ("DELETE", "/v1/subscribers/{s}/devices/{s}", false),
        ("GET", "/v1/subscribers/{s}/plans", false), ("PUT", "/v1/subscribers/{s}", true), ("GET", "/v1/settings", false),
        ("PUT", "/v1/settings", true), ("POST", "/v1/events", true), ("PUT", "/v1/workflows/{s}", true),
        ("GET", "/v1/workflows/{s}", false), ("POST", "/v1/workflows/{s}/trigger", true), ("GET", "/v1/runs/{s}", false),
        ("POST", "/v1/runs/{s}/cancel", false),
    ]

    /// Bodies no route accepts: NUL in every string, strings over any byte limit in two-byte
    /// characters, nesting past the parser's depth, numbers past a double, wrong types, not JSON.
    static var hostileBodies: [Data] {
        let nul = "a\u{0}b", long = String(repeating: "é", count: 300)
        let strings = ["event", "subscriberId", "timezone", "token", "topic", "platform", "environment", "defaultTimezone", "key", "id"]
        let objects: [[String: Any]] = [
            Dictionary(uniqueKeysWithValues: strings.map { ($0, nul) }),
            Dictionary(uniqueKeysWithValues: strings.map { ($0, long) }),
            ["event": 5, "subscriberId": ["x"], "properties": "nope", "timezone": 3, "platform": true],
        ]
        var bodies = objects.map { try! JSONSerialization.data(withJSONObject: $0) }
        bodies.append(Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8))
        bodies.append(Data(#"{"event":"app.opened","subscriberId":"u_1","properties":{"n":1e999999}}"#.utf8))
        bodies.append(Data([0xff, 0xfe, 0x00, 0x7b]))
        bodies.append(Data("[]".utf8))
        return bodies
    }

    func testEveryRouteRefusesHostileInputWhileOrdinaryEventsFlow() throws {
        let tokens = try pipeline.subscriber("steady")
        // The steady stream: a workout every 50 ms, each planned on the steady subscriber's phone.
        let stop = LockedFlag(), statuses = LockedStatuses()
        let harness: APIHarness = api, secretKey = api.secretKey
        let stream = Thread {
            var n = 0
            while !stop.isSet {
                let at = RFC3339.format(Date().addingTimeInterval(600))
                let answer = harness.call("POST", "/v1/events", body: ["id": "steady-\(n)", "event": "workout.scheduled", "subscriberId": "steady",
                                                                       "properties": ["at": at, "workoutId": "w\(n)"]], key: secretKey)
                statuses.add(answer.status)
                n += 1
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        stream.start()

        var answers: [String: Int] = [:]
        for route in Self.routes where route.path.contains("{s}") {
            let withNUL = route.path.replacingOccurrences(of: "{s}", with: "a%00b")
            answers["\(route.method) \(withNUL)"] = api.call(route.method, withNUL, raw: route.body ? Data("{}".utf8) : nil, key: api.secretKey).status
            let withLong = route.path.replacingOccurrences(of: "{s}", with: String(repeating: "%C3%A9", count: 300))
            answers["\(route.method) \(route.path) long"] = api.call(route.method, withLong, raw: route.body ? Data("{}".utf8) : nil, key: api.secretKey).status
        }
        for route in Self.routes where route.body {
            let path = route.path.replacingOccurrences(of: "{s}", with: "ok")
            for (n, body) in Self.hostileBodies.enumerated() {
                answers["\(route.method) \(path) body \(n)"] = api.call(route.method, path, raw: body, key: api.secretKey).status
            }
        }
        while statuses.all.count < 20 { Thread.sleep(forTimeInterval: 0.05) }  // the stream ran across the whole sweep
        stop.set()
        while !stream.isFinished { Thread.sleep(forTimeInterval: 0.01) }

        let refusedWrongly = answers.filter { !(400..<500).contains($0.value) }
        XCTAssertEqual(refusedWrongly, [:], "every hostile request gets a 4xx")
        let sent = statuses.all
        XCTAssertGreaterThan(sent.count, 5)
        XCTAssertEqual(Set(sent), [202], "every ordinary event was accepted")
        XCTAssertTrue(TestServices.eventually(timeout: 15) { self.pipeline.pushes(to: tokens[0]).count >= sent.count },
                      "every ordinary event's plan reached the phone: \(pipeline.pushes(to: tokens[0]).count) of \(sent.count)")
        XCTAssertEqual(api.call("GET", "/readyz").status, 200)
    }

    /// Over AMQP: a body that is not UTF-8 and a routing key naming no tenant are dead-lettered
    /// with their reasons; the good event published between them is processed.
    func testHostileAMQPMessagesAreDeadLetteredAndTheRestFlows() throws {
        let tokens = try pipeline.subscriber("amqp")
        let exchange = pipeline.topology.eventsExchange, tenantId = pipeline.tenantId
        let good = BuzzEvent(id: "good-1", event: "workout.scheduled", subscriberId: "amqp",
                             properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(600))), "workoutId": "w"], timestamp: Date())
        try pipeline.publisher.publishAndWait([
            AMQPMessage(exchange: exchange, routingKey: "\(tenantId).app.opened", body: Data([0xff, 0xfe, 0xfd]), messageId: "bad-utf8"),
            AMQPMessage(exchange: exchange, routingKey: "\(tenantId).workout.scheduled", body: try JSONEncoder().encode(good), messageId: "good"),
            AMQPMessage(exchange: exchange, routingKey: "t_nobody.app.opened",
                        body: Data(#"{"event":"app.opened","subscriberId":"amqp"}"#.utf8), messageId: "no-tenant"),
        ])
        let letters = DeadLetters(topology: pipeline.topology, amqp: TestServices.amqp)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.trigger).count == 2 })
        let byId = Dictionary(try letters.list(.trigger).map { ($0.messageId ?? "", $0.reason) }, uniquingKeysWith: { a, _ in a })
        XCTAssertTrue(byId["bad-utf8"]?.contains("not a valid event") == true, byId["bad-utf8"] ?? "")
        XCTAssertTrue(byId["no-tenant"]?.contains("unknown tenant") == true, byId["no-tenant"] ?? "")
        XCTAssertTrue(TestServices.eventually(timeout: 10) { !self.pipeline.pushes(to: tokens[0]).isEmpty }, "the good event's plan went out")
    }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

final class LockedStatuses: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ status: Int) { lock.lock(); values.append(status); lock.unlock() }
    var all: [Int] { lock.lock(); defer { lock.unlock() }; return values }
}
