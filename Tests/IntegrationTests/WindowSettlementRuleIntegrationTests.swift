import BuzzEngine
import Foundation
import PostgresClient
import XCTest
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore

/// The scheduler settles, as it claims the timers, exactly the windows the counting rule
/// (``PlanHolding``) says a device holds, with the time the counting acknowledgment was
/// recorded, over PostgreSQL's acknowledgments and devices, case by case: a phone that holds
/// the plan, one that let it go (before or after acknowledging it again), a logged-out or moved
/// device, an acknowledgment of an earlier plan of the same local id, one that names no device
/// or no message, a release alone, nothing said. The windows it does not settle are published
/// to fallback-check with their bodies.
final class WindowSettlementRuleIntegrationTests: XCTestCase {
    var schema = ""
    var pool: PostgresPool!
    let tenantId = "t_rule"
    let base = Date(timeIntervalSince1970: 1_790_000_000)

    override func setUpWithError() throws {
        schema = TestServices.uniqueName("settle_rule")
        pool = try TestServices.migratedPool(schema: schema)
        try pool.withConnection { db in
            try db.execute("INSERT INTO tenants (id, name, signing_secret) VALUES (\(tenantId), 'rule', 'secret')")
            for (token, subscriber, active) in [("aa01", "s_active", true), ("aa02", "s_loggedout", false), ("aa03", "s_other", true),
                                                ("aa04", "s_two", true), ("aa05", "s_two", true)] {
                try db.execute("""
                    INSERT INTO devices (id, tenant_id, subscriber_id, platform, token, topic, environment, active)
                    VALUES (\(UUID())::uuid, \(tenantId), \(subscriber), 'ios', \(token), 'com.example', 'production', \(active))
                    """)
            }
        }
    }

    override func tearDown() {
        pool?.close()
        TestServices.dropSchema(schema)
    }

    /// One acknowledgments row: device, the message it names (nil: none; "old": an earlier
    /// plan's), seconds after `base` of the acknowledgment and the release.
    struct Said { var device: String; var message: String? = "plan"; var scheduled: Double?; var released: Double? = nil; var recorded: Double = 0 }

    func testTheClaimStatementSettlesWhatTheRuleSettlesWithTheSameTime() throws {
        let cases: [(name: String, subscriber: String, said: [Said])] = [
            ("holds", "s_active", [Said(device: "aa01", scheduled: 1, recorded: 1.5)]),
            ("released after", "s_active", [Said(device: "aa01", scheduled: 1, released: 2)]),
            ("released then again", "s_active", [Said(device: "aa01", scheduled: 3, released: 2, recorded: 3.2)]),
            ("logged out", "s_loggedout", [Said(device: "aa02", scheduled: 1)]),
            ("moved to another subscriber", "s_active", [Said(device: "aa03", scheduled: 1)]),
            ("names no device", "s_active", [Said(device: "", scheduled: 1, recorded: 4)]),
            ("an earlier plan's message", "s_active", [Said(device: "aa01", message: "old", scheduled: 1)]),
            ("names no message", "s_active", [Said(device: "aa01", message: nil, scheduled: 1, recorded: 2)]),
            ("two phones, one let go", "s_two", [Said(device: "aa04", scheduled: 1, released: 2, recorded: 1),
                                                 Said(device: "aa05", scheduled: 5, recorded: 5.5)]),
            ("two phones holding", "s_two", [Said(device: "aa04", scheduled: 1, recorded: 7), Said(device: "aa05", scheduled: 2, recorded: 6)]),
            ("a release alone", "s_active", [Said(device: "aa01", scheduled: nil, released: 1)]),
            ("nothing said", "s_active", []),
        ]
        var windows: [OutboxMessage.Window] = []
        try pool.withTransaction { db in
            var messages: [OutboxMessage] = []
            var runIds: [UUID?] = []
            for (index, item) in cases.enumerated() {
                let runId = UUID()
                let window = OutboxMessage.Window(tenantId: tenantId, subscriberId: item.subscriber, runId: runId, localId: "\(runId.lowercasedText)/w\(index)")
                windows.append(window)
                for said in item.said {
                    let message = said.message.map { $0 == "old" ? PayloadBuilder.messageId(localId: window.localId + "#earlier") : window.messageId }
                    try db.execute("""
                        INSERT INTO acknowledgments (tenant_id, subscriber_id, local_id, device, message_id, acknowledged_at, scheduled_ts, released_ts)
                        VALUES (\(tenantId), \(item.subscriber), \(window.localId), \(said.device), \(message),
                                \(base.addingTimeInterval(said.recorded)), \(said.scheduled.map { base.addingTimeInterval($0) }),
                                \(said.released.map { base.addingTimeInterval($0) }))
                        """)
                }
                messages.append(OutboxMessage(routingKey: "fallback-check", messageId: "timer-\(index)", body: Data("{\"case\":\(index)}".utf8),
                                              availableAt: Date().addingTimeInterval(-1), window: window))
                runIds.append(runId)
            }
            // An ordinary timer (no window) is always published.
            messages.append(OutboxMessage(routingKey: "fallback-check", messageId: "timer-plain", body: Data("{}".utf8), availableAt: Date().addingTimeInterval(-1)))
            runIds.append(UUID())
            try PostgresOutbox.insert(messages, runIds: runIds, now: Date(), on: db)
        }

        // The rule's own answers, as DESIGN §4b words it: the earliest recorded acknowledgment
        // of a device that holds the plan and still counts for the subscriber.
        let held: [String: Double] = ["holds": 1.5, "released then again": 3.2, "names no device": 4, "names no message": 2,
                                      "two phones, one let go": 5.5, "two phones holding": 6]
        var expected: [String: Date] = [:]
        for (index, item) in cases.enumerated() {
            if let at = held[item.name] { expected[windows[index].localId] = base.addingTimeInterval(at) }
        }

        var published: [OutboxMessage] = []
        let round = try PostgresOutbox(pool: pool).relayDue(limit: 100, settle: WindowDecider.settleHeld) { messages, lateness in
            published = messages
            XCTAssertEqual(lateness.count, cases.count + 1, "lateness of every claimed row")
        }
        XCTAssertEqual(round, RelayRound(published: cases.count + 1 - expected.count, settled: expected.count))
        let decided = try pool.withConnection { db in
            try db.query("SELECT local_id, acknowledged_at, fallback_reason FROM window_decisions").map {
                (try $0.decode("local_id", as: String.self), try $0.decode("acknowledged_at", as: Date?.self), try $0.decode("fallback_reason", as: String?.self))
            }
        }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: decided.map { ($0.0, $0.1) }), expected.mapValues { Optional($0) }, "same windows, same times")
        XCTAssertTrue(decided.allSatisfy { $0.2 == nil })
        let unsettled = windows.enumerated().filter { expected[$0.element.localId] == nil }.map { "timer-\($0.offset)" } + ["timer-plain"]
        XCTAssertEqual(Set(published.map(\.messageId)), Set(unsettled))
        for message in published where message.messageId != "timer-plain" {
            XCTAssertEqual(String(decoding: message.body, as: UTF8.self), "{\"case\":\(message.messageId.dropFirst("timer-".count))}", "published with its body")
        }
        XCTAssertEqual(try pool.withConnection { try $0.query("SELECT count(*) AS n FROM outbox")[0].decode("n", as: Int64.self) }, 0, "every claimed row deleted")
    }
}
