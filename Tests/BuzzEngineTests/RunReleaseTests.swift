import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

/// Plans a device lets go of (docs/contract.md §4b "Released plans"): `.released` withdraws the
/// acknowledgment until a later `.acknowledged`, and the decision at the moment says why.
final class RunReleaseTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")
    private let moment = instant("2026-12-01T06:00:00Z") // 07:00 Berlin
    private let localId = "run-1/nudge"
    private var messageId: String { PayloadBuilder.messageId(localId: localId) }
    private let released = RunSummary.LocalWindow.Fallback.releasedByEveryDevice
    private let gone = RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt

    private func startedRun(_ context: RunContext = RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin")) throws -> (RunState, RunTimer) {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(), context: context)
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        return (run, timer)
    }

    func testAReleasedAcknowledgmentGetsTheFallbackWithTheReleaseReason() throws {
        var (run, timer) = try startedRun()
        _ = run.handle(.acknowledged(localId: localId, messageId: messageId), now: begins.addingTimeInterval(5))
        XCTAssertTrue(run.handle(.released(localId: localId, messageId: messageId, reason: released), now: begins.addingTimeInterval(60)).isEmpty,
                      "a release sends nothing by itself")
        let window = try XCTUnwrap(run.steps.last?.local)
        XCTAssertFalse(window.acknowledged, "before the moment the summary says no device holds it")
        XCTAssertNil(window.acknowledgedAt)
        XCTAssertEqual(window.releaseReason, released)
        XCTAssertNil(window.fallback)

        let actions = run.handle(.timerFired(timer), now: moment)
        XCTAssertEqual(actions.fallbacks.count, 1)
        XCTAssertEqual(actions.fallbacks.first?.reason, released)
        XCTAssertEqual(actions.fallbacks.first?.idempotencyKey, "run-1/nudge/fallback")
        XCTAssertEqual(run.steps.last?.status, .fallbackSent)
        XCTAssertEqual(run.steps.last?.local?.fallback,
                       RunSummary.LocalWindow.Fallback(sent: true, idempotencyKey: "run-1/nudge/fallback", reason: "released by every device that acknowledged it"))
        XCTAssertEqual(run.summary.steps.last?.local?.fallback?.reason, released)
    }

    func testAReleaseFollowedByAnAcknowledgmentCountsAsAcknowledged() throws {
        var (run, timer) = try startedRun()
        _ = run.handle(.acknowledged(localId: localId, messageId: nil), now: begins.addingTimeInterval(5))
        _ = run.handle(.released(localId: localId, messageId: nil, reason: released), now: begins)
        let again = begins.addingTimeInterval(600)
        _ = run.handle(.acknowledged(localId: localId, messageId: messageId), now: again)
        let window = try XCTUnwrap(run.steps.last?.local)
        XCTAssertTrue(window.acknowledged)
        XCTAssertEqual(window.acknowledgedAt, again, "the acknowledgment that counts now")
        XCTAssertNil(window.releaseReason)
        XCTAssertTrue(run.handle(.timerFired(timer), now: moment).sends.isEmpty)
        XCTAssertEqual(run.steps.last?.status, .scheduledOnDevice)
        XCTAssertEqual(run.steps.last?.local?.fallback?.reason, RunSummary.LocalWindow.Fallback.confirmed)
    }

    func testReleasesAreIdempotentAndChecked() throws {
        var (run, _) = try startedRun()
        _ = run.handle(.acknowledged(localId: localId, messageId: nil), now: begins)
        // Another plan, another message: nothing changes.
        let untouched = run
        _ = run.handle(.released(localId: "run-1/other", messageId: nil, reason: released), now: begins)
        _ = run.handle(.released(localId: localId, messageId: "not-the-message", reason: released), now: begins)
        XCTAssertEqual(run, untouched)
        _ = run.handle(.released(localId: localId, messageId: nil, reason: released), now: begins)
        let revision = run.revision
        _ = run.handle(.released(localId: localId, messageId: messageId, reason: released), now: begins.addingTimeInterval(9))
        XCTAssertEqual(run.revision, revision, "the same release again changes nothing")
        _ = run.handle(.released(localId: localId, messageId: nil, reason: gone), now: begins)
        XCTAssertEqual(run.revision, revision + 1, "a different reason is recorded")
        XCTAssertEqual(run.steps.last?.local?.releaseReason, gone)
    }

    func testAReleaseWithoutAnyAcknowledgmentStillGivesItsReason() throws {
        // The release may be handled before its acknowledgment ever reached the server.
        var (run, timer) = try startedRun()
        _ = run.handle(.released(localId: localId, messageId: nil, reason: gone), now: begins)
        XCTAssertEqual(run.handle(.timerFired(timer), now: moment).fallbacks.first?.reason, gone)
    }

    func testTheDecisionIsNeverRevisitedByALaterRelease() throws {
        var (run, timer) = try startedRun()
        _ = run.handle(.acknowledged(localId: localId, messageId: nil), now: begins)
        _ = run.handle(.timerFired(timer), now: moment)
        let decided = run
        XCTAssertTrue(run.handle(.released(localId: localId, messageId: nil, reason: released), now: moment.addingTimeInterval(1)).isEmpty)
        XCTAssertEqual(run, decided, "a window decided as scheduled on device stays so")

        // Nor does a release after the run was cancelled.
        var (cancelled, _) = try startedRun()
        _ = cancelled.handle(.acknowledged(localId: localId, messageId: nil), now: begins)
        _ = cancelled.handle(.cancel, now: begins)
        let before = cancelled
        XCTAssertTrue(cancelled.handle(.released(localId: localId, messageId: nil, reason: released), now: begins).isEmpty)
        XCTAssertEqual(cancelled, before)
    }

    func testDryRunsAndRunsWithoutASubscriberIgnoreReleases() throws {
        for context in [RunContext(runId: "run-1", dryRun: true, subscriberTimeZone: "Europe/Berlin"),
                        RunContext(runId: "run-1", hasSubscriber: false, subscriberTimeZone: "Europe/Berlin")] {
            var (run, timer) = try startedRun(context)
            let before = run
            _ = run.handle(.released(localId: localId, messageId: nil, reason: released), now: begins)
            XCTAssertEqual(run, before, "no plan went out, so none can be released")
            XCTAssertTrue(run.handle(.timerFired(timer), now: moment).sends.isEmpty)
        }
    }

    func testALocalReleasedEventAloneIsNotARelease() throws {
        // One device's release says nothing about the subscriber's other devices; the caller
        // decides from every device's standing and feeds `.released`.
        var (run, timer) = try startedRun()
        _ = run.handle(.acknowledged(localId: localId, messageId: nil), now: begins)
        _ = run.handle(.event(Fixtures.event("$local.released", ["localId": .string(localId), "messageId": .string(messageId)])), now: begins)
        XCTAssertEqual(run.steps.last?.local?.acknowledged, true)
        XCTAssertTrue(run.handle(.timerFired(timer), now: moment).sends.isEmpty)
    }

    func testTheStoredFormKeepsTheReleaseAndReadsStatesWrittenBefore() throws {
        var (run, _) = try startedRun()
        _ = run.handle(.acknowledged(localId: localId, messageId: nil), now: begins)
        let plain = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(run))
        XCTAssertFalse(plain.jsonText.contains("releaseReason"), "states that never saw a release keep the form written before")
        XCTAssertEqual(Set(plain["steps"]?.arrayValue?.last?["local"]?.objectValue?.keys ?? [:].keys),
                       ["plan", "moment", "shiftedByQuietHours", "planSent", "planSentTo", "acknowledged", "acknowledgedAt"])

        _ = run.handle(.released(localId: localId, messageId: nil, reason: released), now: begins)
        let data = try JSONEncoder().encode(run)
        let json = try JSONDecoder().decode(JSONValue.self, from: data)
        XCTAssertEqual(json["steps"]?.arrayValue?.last?["local"]?["releaseReason"], .string(released))
        XCTAssertEqual(try JSONDecoder().decode(RunState.self, from: data), run)
        var writer = JSONWriter()
        run.write(to: &writer, includingWorkflow: false)
        XCTAssertEqual(try RunState(json: try JSONParser.parse(Data(writer.bytes)), workflow: run.workflow), run, "hand-written form = Codable form")

        // A window as states were written before releases existed (no member at all).
        let plan = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(try XCTUnwrap(run.steps.last?.local?.plan)))
        let old: JSONValue = [
            "plan": plan, "moment": "2026-12-01T06:00:00Z", "shiftedByQuietHours": false,
            "planSent": true, "planSentTo": 1, "acknowledged": true, "acknowledgedAt": "2026-11-30T09:00:00Z",
        ]
        let window = try LocalWindowRecord(json: old, path: "local")
        XCTAssertNil(window.releaseReason)
        XCTAssertTrue(window.acknowledged)
        var oldWriter = JSONWriter()
        window.write(to: &oldWriter)
        XCTAssertEqual(try JSONParser.parse(Data(oldWriter.bytes)), old, "and it is written back unchanged")
    }
}
