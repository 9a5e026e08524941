import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// An acknowledgment counts from the moment the API accepts it (issue 16): the API records it
/// in PostgreSQL before answering `202`, so the fallback check at the moment sees it however
/// far behind `ack-ingest` is: stopped, restarting, or working through a burst.
final class AcknowledgmentAtAcceptanceIntegrationTests: APITestCase {
    /// Every stage but ack-ingest: it is down until a test starts it.
    override func makeHarness() throws -> APIHarness { try APIHarness(queues: [.trigger, .planDispatch, .fallbackCheck]) }

    func testAnAcknowledgmentAccepted2sBeforeTheMomentWithAckIngestDownAroundItSendsNoFallback() throws {
        let (plan, runId, tokens, moment) = try api.window("maya", devices: 1, lead: 6)
        Thread.sleep(until: moment.addingTimeInterval(-2))
        api.say(BuzzEvent.localScheduled, plan, subscriber: "maya", token: tokens[0], at: Date())
        Thread.sleep(until: moment.addingTimeInterval(4))  // ack-ingest down from before the 202 to 4 s past the moment
        pipeline.startWorkers([.ackIngest])

        let (fallback, local, alerts) = try api.decision(runId, tokens: tokens, lead: 0)
        XCTAssertEqual(fallback["sent"] as? Bool, false, "the phone's local notification is the only one")
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.confirmed)
        XCTAssertEqual(local["acknowledged"] as? Bool, true)
        let acknowledgedAt = try XCTUnwrap((local["acknowledgedAt"] as? String).flatMap(RFC3339.parse))
        XCTAssertLessThan(acknowledgedAt, moment, "recorded when the API accepted it")
        XCTAssertEqual(alerts, [0])
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_messages_total", ["queue": "ack-ingest", "outcome": "processed"]), 0,
                       "nothing of it waited in ack-ingest")
    }

    func testWithAckIngestDownForGoodAnAcceptedAcknowledgmentStillCountsAndAnUnacknowledgedWindowStillFallsBack() throws {
        let (plan, runId, tokens, _) = try api.window("kim", devices: 1, lead: 4)
        let (_, otherRun, otherTokens, _) = try api.window("lee", devices: 1, lead: 4)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "kim", token: tokens[0], at: Date())

        let (kept, _, keptAlerts) = try api.decision(runId, tokens: tokens, lead: 4)
        XCTAssertEqual(kept["sent"] as? Bool, false)
        XCTAssertEqual(keptAlerts, [0])
        // Nobody acknowledged Lee's plan: the person gets it as a push, once, at the moment.
        let (fallback, _, alerts) = try api.decision(otherRun, tokens: otherTokens, lead: 4)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.noConfirmation)
        XCTAssertEqual(alerts, [1])
    }

    func testAnAcknowledgmentAcceptedAfterTheMomentDoesNotUndoTheFallback() throws {
        let (plan, runId, tokens, moment) = try api.window("jo", devices: 1, lead: 3)
        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens, lead: 3)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(alerts, [1])
        let late = api.say(BuzzEvent.localScheduled, plan, subscriber: "jo", token: tokens[0], at: moment.addingTimeInterval(1))
        XCTAssertEqual(late, [plan.id], "the phone is told its acknowledgment came after the fallback, so it withdraws its copy")
        XCTAssertNil(try api.standing(plan, token: tokens[0]), "not recorded: it does not count")
        XCTAssertEqual(api.say(BuzzEvent.localScheduled, plan, subscriber: "jo", token: tokens[0], at: moment.addingTimeInterval(2)), [plan.id],
                       "sent again, it is late again")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(api.summary(runId).local["fallback"].flatMap { ($0 as? [String: Any])?["sent"] as? Bool }, true)
        XCTAssertEqual(api.acknowledged(runId), false)
        XCTAssertEqual(pipeline.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 1, "sent once")
    }

    func testAnAcknowledgmentCountedBeforeTheMomentIsNeverAnsweredLate() throws {
        let (plan, runId, tokens, moment) = try api.window("ada", devices: 1, lead: 3)
        XCTAssertEqual(api.say(BuzzEvent.localScheduled, plan, subscriber: "ada", token: tokens[0], at: moment.addingTimeInterval(-1)), [])
        let (fallback, _, _) = try api.decision(runId, tokens: tokens, lead: 3)
        XCTAssertEqual(fallback["sent"] as? Bool, false)
        XCTAssertEqual(api.say(BuzzEvent.localScheduled, plan, subscriber: "ada", token: tokens[0], at: moment.addingTimeInterval(1)), [],
                       "a repeat of a counted acknowledgment (a retry after a lost answer) is counted still")
    }

    /// A plan pushed before its run was cancelled can reach an offline phone without the cancel
    /// (APNs keeps one push per app, not always the newest; `make chaos` showed two reminders
    /// after a cancel that way): the answer to its acknowledgment names the plan, which the
    /// phone then drops, and nothing counts it.
    func testAnAcknowledgmentOfACancelledRunsPlanIsAnsweredCancelled() throws {
        let (plan, runId, tokens, moment) = try api.window("noa", devices: 1, lead: 6)
        XCTAssertEqual(api.call("POST", "/v1/runs/\(runId)/cancel", body: [:], key: api.secretKey).status, 200)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.summary(runId).status == "cancelled" })
        let answer = api.answer(BuzzEvent.localScheduled, plan, subscriber: "noa", token: tokens[0], at: Date())
        XCTAssertEqual(answer?.cancelled, [plan.id], "the phone is told to drop it")
        XCTAssertNil(answer?.late)
        XCTAssertNil(try api.standing(plan, token: tokens[0]), "not recorded")
        Thread.sleep(until: moment.addingTimeInterval(1.5))
        XCTAssertEqual(pipeline.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 0, "and no fallback: the run was cancelled")
    }

    /// A phone that is told its acknowledgment failed withdraws its copy before the moment,
    /// so an acknowledgment answered 503 must not count (else nobody shows the reminder).
    func testAnAcknowledgmentInABatchRabbitMQRefusedIsNotRecorded() throws {
        try pipeline.subscriber("ivo")
        api.runtime.publisher.close(timeout: 1)  // the API's publishes now fail: nothing reaches RabbitMQ
        let runId = UUID().uuidString.lowercased()
        let events: [[String: Any]] = [
            ["id": "e1", "event": "app.opened", "subscriberId": "ivo"],
            ["event": BuzzEvent.localScheduled, "subscriberId": "ivo", "properties": ["localId": "\(runId)/nudge", "messageId": "m"]],
        ]
        let answer = api.call("POST", "/v1/events", body: ["events": events], key: api.publishableKey, headers: api.deviceHeaders("ivo"))
        XCTAssertEqual(answer.status, 503, String(decoding: answer.data, as: UTF8.self))
        let rows = try pipeline.pool.withConnection { db in try db.query("SELECT count(*)::int AS n FROM acknowledgments")[0].decode("n", as: Int.self) }
        XCTAssertEqual(rows, 0, "told it failed, so not counted")
    }

    func testAMalformedAcknowledgmentIsRefusedWith400AndNothingOfTheBatchIsAccepted() throws {
        try pipeline.subscriber("ren")
        let events: [[String: Any]] = [
            ["event": "app.opened", "subscriberId": "ren"],
            ["event": BuzzEvent.localScheduled, "subscriberId": "ren", "properties": ["localId": "no-run/nudge", "messageId": "m"]],
        ]
        let answer = api.call("POST", "/v1/events", body: ["events": events], key: api.publishableKey, headers: api.deviceHeaders("ren"))
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(answer.errorField, "events[1].properties.localId")
        let rows = try pipeline.pool.withConnection { db in try db.query("SELECT count(*)::int AS n FROM acknowledgments")[0].decode("n", as: Int.self) }
        XCTAssertEqual(rows, 0)
    }
}
