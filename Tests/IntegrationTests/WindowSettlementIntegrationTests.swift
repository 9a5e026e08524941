import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// An acknowledged window on PostgreSQL needs no queue message at its moment. An
/// acknowledgment before the moment holds the window's timer: the scheduler never takes it,
/// the summary reads "scheduled on device" from the moment on, and the window completer
/// writes the run with the same summary. A window acknowledged without a hold (the device did
/// not count yet) is settled by the scheduler at its moment instead. Anything that could make
/// the moment decide otherwise undoes the hold first (releases and logouts: see
/// ``ReleasedPlanIntegrationTests``; a token moving to another subscriber: here).
final class WindowSettlementIntegrationTests: APITestCase {
    func testAnAcknowledgmentHoldsTheWindowSoItsMomentNeedsNoWork() throws {
        let (plan, runId, tokens, _) = try api.window("maya", devices: 1)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "maya", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == true })
        XCTAssertEqual(api.runtime.metrics.counter("buzzkit_windows_held_total"), 1, "held by the acknowledgment the API recorded")
        XCTAssertEqual(try stored(runId).held, 1)
        XCTAssertEqual(api.summary(runId).status, "waiting", "not decided before its moment")

        let (fallback, local, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, false)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.confirmed)
        XCTAssertEqual(alerts, [0], "no fallback")
        XCTAssertNotNil(local["acknowledgedAt"] as? String)
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_windows_settled_total"), 0, "nothing for the scheduler to settle")
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_messages_total", ["queue": "fallback-check", "outcome": "processed"]), 0,
                       "no queue message")
        let before = try stored(runId)
        XCTAssertEqual(before.status, "waiting", "the run is written by the completer")
        XCTAssertEqual(before.held, 1, "the held timer stands for the decision until then")
        try completeAndCompare(runId, derived: api.summary(runId))
        XCTAssertEqual(try stored(runId).held, 0)
    }

    func testAWindowAcknowledgedWithoutAHoldIsSettledByTheSchedulerAtItsMoment() throws {
        let (plan, runId, tokens, _) = try api.window("noor", devices: 1)
        // Logged out when it acknowledges (it does not count, nothing is held), then signed in
        // again before the moment: the scheduler finds the acknowledgment counting at the moment.
        XCTAssertEqual(api.call("DELETE", "/v1/subscribers/noor/devices/\(tokens[0])", key: api.publishableKey,
                                headers: api.deviceHeaders("noor")).status, 204)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "noor", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { (try? self.api.standing(plan, token: tokens[0]))??.scheduled != nil })
        XCTAssertEqual(try stored(runId).held, 0)
        XCTAssertEqual(register("noor", tokens[0]).status, 200)
        XCTAssertEqual(api.acknowledged(runId), true)

        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.confirmed)
        XCTAssertEqual(alerts, [0], "no fallback")
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_windows_settled_total"), 1, "settled by the scheduler")
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_fallback_checks_total", ["outcome": "confirmed"]), 1)
        XCTAssertEqual(try stored(runId).decisions, 1)
        try completeAndCompare(runId, derived: api.summary(runId))
    }

    func testATokenMovedToAnotherSubscriberUndoesTheHoldAndTheFallbackGoesOut() throws {
        let (plan, runId, tokens, _) = try api.window("ines", devices: 2)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "ines", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { (try? self.stored(runId).held) == 1 })
        // The phone is handed to someone else, who signs in on it.
        XCTAssertEqual(register("tom", tokens[0]).status, 200)
        XCTAssertEqual(try stored(runId).held, 0, "the hold is undone")
        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt)
        XCTAssertEqual(alerts, [0, 1], "ines's other phone gets the fallback; the handed-on phone gets nothing of hers")
    }

    /// A phone whose acknowledgment was still unanswered at its last call withdraws its copy
    /// and releases it; the release may reach the server after the moment. Made before the
    /// moment, it still frees the held timer, and the fallback goes out late rather than never.
    func testAReleaseMadeBeforeTheMomentButArrivingAfterItStillGetsTheFallback() throws {
        let (plan, runId, tokens, moment) = try api.window("zoe", devices: 1)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "zoe", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { (try? self.stored(runId).held) == 1 })
        Thread.sleep(forTimeInterval: max(0, moment.timeIntervalSinceNow) + 1)
        XCTAssertEqual(api.summary(runId).local["acknowledged"] as? Bool, true, "held past its moment: scheduled on device")
        api.say(BuzzEvent.localReleased, plan, subscriber: "zoe", token: tokens[0], at: moment.addingTimeInterval(-0.5))
        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.releasedByEveryDevice)
        XCTAssertEqual(alerts, [1], "the fallback, once")
    }

    /// A release the phone made after the moment (its notification had fired) changes nothing.
    func testAReleaseMadeAfterTheMomentLeavesTheWindowScheduledOnDevice() throws {
        let (plan, runId, tokens, moment) = try api.window("yara", devices: 1)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "yara", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { (try? self.stored(runId).held) == 1 })
        Thread.sleep(forTimeInterval: max(0, moment.timeIntervalSinceNow) + 0.5)
        api.say(BuzzEvent.localReleased, plan, subscriber: "yara", token: tokens[0], at: Date())
        XCTAssertEqual(try stored(runId).held, 1, "still held")
        XCTAssertEqual(api.acknowledged(runId), true)
        XCTAssertEqual(pipeline.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 0)
    }

    func testACancelBeforeTheMomentEndsAHeldWindowWithoutADecision() throws {
        let (plan, runId, tokens, moment) = try api.window("ola", devices: 1)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "ola", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { (try? self.stored(runId).held) == 1 })
        XCTAssertEqual(api.call("POST", "/v1/runs/\(runId)/cancel", key: api.secretKey).status, 200)
        XCTAssertEqual(try stored(runId).held, 0, "the cancel deleted the timer")
        Thread.sleep(forTimeInterval: max(0, moment.timeIntervalSinceNow) + 1.5)
        let summary = api.summary(runId)
        XCTAssertEqual(summary.status, "cancelled")
        XCTAssertNil(summary.local["fallback"] as? [String: Any], "no decision after a cancel")
        XCTAssertEqual(pipeline.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 0)
    }

    /// Writes the run with the completer and checks the summary did not change.
    private func completeAndCompare(_ runId: String, derived: (local: [String: Any], status: String?)) throws {
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

    private func register(_ subscriber: String, _ token: String) -> APIHarness.Response {
        api.call("PUT", "/v1/subscribers/\(subscriber)/devices", body: ["platform": "ios", "token": token, "topic": "com.example.gym"],
                 key: api.publishableKey, headers: api.deviceHeaders(subscriber))
    }

    /// The run's stored status, its decisions waiting, and its held timers.
    private func stored(_ runId: String) throws -> (status: String, decisions: Int, held: Int) {
        try pipeline.pool.withConnection { db in
            let row = try db.query("""
                SELECT status, (SELECT count(*) FROM window_decisions WHERE run_id = \(runId)::uuid) AS n,
                       (SELECT count(*) FROM outbox WHERE run_id = \(runId)::uuid AND held_at IS NOT NULL) AS h
                FROM runs WHERE id = \(runId)::uuid
                """)[0]
            return (try row.decode("status"), try row.decode("n"), try row.decode("h"))
        }
    }
}
