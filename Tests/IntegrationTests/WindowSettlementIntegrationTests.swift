import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Windows decided at their moment outside their runs, on PostgreSQL: an acknowledged one
/// settled by the real scheduler (nothing goes to `fallback-check`), an unacknowledged one
/// decided by `fallback-check` without loading the run. The decision stays in
/// `window_decisions`, the summary reads decided from the moment on, and the window completer
/// files the run under `completed` without rewriting its state: the same summary.
final class WindowSettlementIntegrationTests: APITestCase {
    func testAnAcknowledgedWindowIsSettledByTheSchedulerAndFiledByTheCompleter() throws {
        let (plan, runId, tokens, _) = try api.window("maya", devices: 1)
        let acknowledgedAt = Date()
        api.say(BuzzEvent.localScheduled, plan, subscriber: "maya", token: tokens[0], at: acknowledgedAt)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == true })

        let (fallback, local, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, false)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.confirmed)
        XCTAssertEqual(alerts, [0], "no fallback")
        XCTAssertNotNil(local["acknowledgedAt"] as? String)
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_windows_settled_total"), 1, "settled by the scheduler")
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_fallback_checks_total", ["outcome": "confirmed"]), 1)
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_messages_total", ["queue": "fallback-check", "outcome": "processed"]), 0,
                       "no queue message")
        let before = try stored(runId)
        XCTAssertEqual(before.status, "waiting", "the run is filed by the completer")
        XCTAssertEqual(before.decisions, 1)
        let derived = api.summary(runId)

        let completer = WindowCompleter(context: pipeline.context, settings: {
            var settings = CompletionSettings()
            settings.delaySeconds = 0
            return settings
        }())
        XCTAssertEqual(try completer.completeBatch(), 1)
        let after = try stored(runId)
        XCTAssertEqual(after.status, "completed")
        XCTAssertEqual(after.decisions, 0, "filed once")
        XCTAssertEqual(after.state, before.state, "the run's state is not rewritten: its readers fold the decision in")
        let written = api.summary(runId)
        XCTAssertEqual(written.status, "completed")
        XCTAssertEqual(try JSONSerialization.data(withJSONObject: written.local, options: .sortedKeys),
                       try JSONSerialization.data(withJSONObject: derived.local, options: .sortedKeys), "the same summary")
        XCTAssertEqual(try completer.completeBatch(), 0, "nothing left")
    }

    func testAnUnacknowledgedWindowGetsItsFallbackWithoutLoadingTheRunAndTheCompleterFilesIt() throws {
        let (plan, runId, tokens, _) = try api.window("noor", devices: 2)
        // One phone acknowledges and lets go again: the fallback goes to both, with the release's reason.
        api.say(BuzzEvent.localScheduled, plan, subscriber: "noor", token: tokens[0], at: Date())
        api.say(BuzzEvent.localReleased, plan, subscriber: "noor", token: tokens[0], at: Date().addingTimeInterval(0.01))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { (try? self.api.standing(plan, token: tokens[0]))??.released != nil })

        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.releasedByEveryDevice)
        XCTAssertEqual(alerts, [1, 1], "the fallback, once on each phone")
        let sent = try JSONDecoder().decode(AlertPayload.self, from: try XCTUnwrap(pipeline.pushes(to: tokens[1]).last { $0.pushType == .alert }).payload)
        XCTAssertEqual(sent, AlertPayload(title: plan.title, body: plan.body, messageId: plan.messageId, localId: plan.id,
                                          deepLink: plan.deepLink, data: plan.data), "the plan's own message, read back from local_plans")
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_windows_decided_outside_run_total"), 1)
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_fallback_checks_total", ["outcome": "fallback"]), 1)
        let before = try stored(runId)
        XCTAssertEqual(before.status, "waiting", "the run is filed by the completer")
        XCTAssertEqual(before.decisions, 1)
        let derived = api.summary(runId)

        var settings = CompletionSettings()
        settings.delaySeconds = 0
        XCTAssertEqual(try WindowCompleter(context: pipeline.context, settings: settings).completeBatch(), 1)
        XCTAssertEqual(try stored(runId).status, "completed")
        XCTAssertEqual(try JSONSerialization.data(withJSONObject: api.summary(runId).local, options: .sortedKeys),
                       try JSONSerialization.data(withJSONObject: derived.local, options: .sortedKeys), "the same summary")
        XCTAssertEqual(tokens.map { pipeline.pushes(to: $0).filter { $0.pushType == .alert }.count }, [1, 1], "nothing sent again")
    }

    /// A rolling upgrade: a decision a server from before migration 0025 recorded says nothing
    /// of whether its run goes on (`filed` NULL), so the completer writes it into the run as
    /// those servers did, and the run reads the same.
    func testADecisionFromBeforeTheUpgradeIsWrittenIntoItsRun() throws {
        let (plan, runId, tokens, _) = try api.window("ines", devices: 1)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "ines", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == true })
        _ = try api.decision(runId, tokens: tokens)
        try pipeline.pool.withConnection { db in
            XCTAssertEqual(try db.execute("UPDATE window_decisions SET filed = NULL WHERE run_id = \(runId)::uuid"), 1)
        }
        let before = try stored(runId)
        XCTAssertEqual(before.decisions, 1)
        let derived = api.summary(runId)

        var settings = CompletionSettings()
        settings.delaySeconds = 0
        XCTAssertEqual(try WindowCompleter(context: pipeline.context, settings: settings).completeBatch(), 1)
        let after = try stored(runId)
        XCTAssertEqual(after.status, "completed", "the engine completed it")
        XCTAssertNotEqual(after.state, before.state, "the decision is in the run's state")
        XCTAssertEqual(after.decisions, 0)
        XCTAssertEqual(try JSONSerialization.data(withJSONObject: api.summary(runId).local, options: .sortedKeys),
                       try JSONSerialization.data(withJSONObject: derived.local, options: .sortedKeys), "the same summary")
    }

    /// The run's stored status and state, and its decisions not yet filed.
    private func stored(_ runId: String) throws -> (status: String, state: String, decisions: Int) {
        try pipeline.pool.withConnection { db in
            let row = try db.query("""
                SELECT status, state, (SELECT count(*) FROM window_decisions WHERE run_id = \(runId)::uuid AND filed IS NOT TRUE) AS n
                FROM runs WHERE id = \(runId)::uuid
                """)[0]
            return (try row.decode("status"), try row.decode("state"), try row.decode("n"))
        }
    }
}
