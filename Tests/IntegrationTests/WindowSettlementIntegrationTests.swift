import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// An acknowledged window settled by the real scheduler on PostgreSQL: nothing goes to
/// `fallback-check`, the decision waits in `window_decisions` while the summary already reads
/// "scheduled on device", and the window completer writes the run with the same summary.
final class WindowSettlementIntegrationTests: APITestCase {
    func testAnAcknowledgedWindowIsSettledByTheSchedulerAndWrittenByTheCompleter() throws {
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
        XCTAssertEqual(before.status, "waiting", "the run is written by the completer")
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
        XCTAssertEqual(after.decisions, 0)
        let written = api.summary(runId)
        XCTAssertEqual(written.status, "completed")
        XCTAssertEqual(try JSONSerialization.data(withJSONObject: written.local, options: .sortedKeys),
                       try JSONSerialization.data(withJSONObject: derived.local, options: .sortedKeys), "the same summary")
        XCTAssertEqual(try completer.completeBatch(), 0, "nothing left")
    }

    /// The run's stored status and its decisions waiting.
    private func stored(_ runId: String) throws -> (status: String, decisions: Int) {
        try pipeline.pool.withConnection { db in
            let row = try db.query("""
                SELECT status, (SELECT count(*) FROM window_decisions WHERE run_id = \(runId)::uuid) AS n FROM runs WHERE id = \(runId)::uuid
                """)[0]
            return (try row.decode("status"), try row.decode("n"))
        }
    }
}
