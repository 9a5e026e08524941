import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

/// The compact stored form (``RunStateForm/compact``): smaller, and the same run when read
/// back. `RunHarness.checkStorage` round-trips every state the engine tests reach in it too.
final class RunCompactStorageTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")

    private func plannedRun() -> RunState {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(),
                           context: RunContext(runId: "0b8e2f57-1c1d-4c71-9d3a-8f9b2f3e6a10", subscriberTimeZone: "Europe/Berlin",
                                               tenantDefaultTimeZone: "UTC", quietHours: Fixtures.quiet))
        _ = run.handle(.start, now: begins)
        _ = run.handle(.planDelivered(localId: run.runId + "/nudge", deviceCount: 2), now: begins)
        return run
    }

    private func text(_ run: RunState, _ form: RunStateForm) -> String {
        var writer = JSONWriter()
        run.write(to: &writer, includingWorkflow: false, form: form)
        return writer.string
    }

    private func read(_ text: String, _ run: RunState) throws -> RunState {
        try RunState(json: try JSONParser.parse(text), workflow: run.workflow)
    }

    /// A waiting window's run, as the trigger stores it: the compact form is at most two thirds
    /// of the verbose one, reads back as the same run, and that run goes on exactly as the
    /// original does.
    func testCompactFormIsTwoThirdsTheSizeAndTheRunGoesOnTheSame() throws {
        var run = plannedRun()
        let verbose = text(run, .verbose), compact = text(run, .compact)
        XCTAssertTrue(compact.hasPrefix("{\"v\":2,"), compact)
        XCTAssertLessThanOrEqual(compact.utf8.count * 3, verbose.utf8.count * 2, "compact \(compact.utf8.count) B, verbose \(verbose.utf8.count) B")
        var reloaded = try read(compact, run)
        XCTAssertEqual(reloaded, run)
        XCTAssertEqual(try read(verbose, run), reloaded, "both forms hold the same state")
        let acknowledged = begins.addingTimeInterval(5)
        let moment = try XCTUnwrap(run.steps.compactMap(\.local).first?.moment)
        let input = RunInput.acknowledged(localId: run.runId + "/nudge", messageId: nil)
        XCTAssertEqual(reloaded.handle(input, now: acknowledged), run.handle(input, now: acknowledged))
        XCTAssertEqual(try read(text(reloaded, .compact), run), run)
        XCTAssertEqual(reloaded.handle(.timerFired(try XCTUnwrap(run.pendingTimer)), now: moment),
                       run.handle(.timerFired(try XCTUnwrap(run.pendingTimer)), now: moment))
        XCTAssertEqual(reloaded, run)
        XCTAssertEqual(reloaded.summary, run.summary)
    }

    /// The run id is stored once; the verbose form has it in the context, the pending timer
    /// and the plan's id.
    func testRunIdIsStoredOnce() {
        let run = plannedRun()
        XCTAssertEqual(text(run, .compact).components(separatedBy: run.runId).count - 1, 1)
        XCTAssertEqual(text(run, .verbose).components(separatedBy: run.runId).count - 1, 3)
    }

    /// What the compact form leaves out is what it can derive; a value that differs from what
    /// would be derived is written, read back and written again the same.
    func testValuesThatDifferFromTheDerivedOnesAreKept() throws {
        let run = plannedRun()
        guard case .object(var root) = try JSONParser.parse(text(run, .compact)),
              case .object(var timer)? = root["timer"], case .array(var steps)? = root["steps"],
              case .object(var step) = steps[1], case .object(var local)? = step["l"] else { return XCTFail() }
        XCTAssertNil(timer["g"])
        XCTAssertNil(timer["r"])
        XCTAssertNil(step["p"])
        XCTAssertNil(local["m"])
        guard case .object(var plan)? = local["plan"] else { return XCTFail() }
        XCTAssertNil(plan["id"])
        plan["id"] = "a-plan-of-its-own"
        local["plan"] = .object(plan)
        timer["g"] = 7
        timer["r"] = "another-run"
        timer["p"] = "steps[1]"
        step["p"] = "steps[2].branch.then[0]"
        local["m"] = 1_796_623_571_440
        step["l"] = .object(local)
        steps[1] = .object(step)
        root["timer"] = .object(timer)
        root["steps"] = .array(steps)
        let edited = JSONValue.object(root)
        let reread = try RunState(json: edited, workflow: run.workflow)
        XCTAssertEqual(reread.pendingTimer?.generation, 7)
        XCTAssertEqual(reread.pendingTimer?.runId, "another-run")
        XCTAssertEqual(reread.pendingTimer?.stepPath.description, "steps[1]")
        XCTAssertEqual(reread.steps[1].path.description, "steps[2].branch.then[0]")
        XCTAssertEqual(reread.steps[1].local?.moment, instant("2026-12-07T06:06:11.440Z"))
        XCTAssertEqual(reread.steps[1].local?.localId, "a-plan-of-its-own")
        XCTAssertEqual(try JSONParser.parse(text(reread, .compact)), edited)
    }

    /// Instants are numbers in the compact form, and they read back as the very dates the
    /// verbose form's text gives, before 1970 too.
    func testInstantsAsMillisecondsReadBackAsTheTextFormsDates() {
        for text in ["2026-11-30T09:00:00Z", "2026-12-07T06:06:11.440Z", "2026-12-07T06:06:11.001Z", "2026-12-07T06:06:11.999Z",
                     "1969-12-31T23:59:59.250Z", "1970-01-01T00:00:00Z", "2099-03-01T00:00:00.100Z"] {
            guard let date = RFC3339.parse(text) else { return XCTFail(text) }
            let milliseconds = RFC3339.epochMilliseconds(of: date)
            XCTAssertEqual(RFC3339.instant(epochMilliseconds: milliseconds), date, text)
            XCTAssertEqual(RFC3339.format(RFC3339.instant(epochMilliseconds: milliseconds)), text)
        }
    }

    func testUnknownCompactVersionIsRefusedWithWhatThisReleaseReads() throws {
        let run = plannedRun()
        guard case .object(var root) = try JSONParser.parse(text(run, .compact)) else { return XCTFail() }
        root["v"] = 3
        XCTAssertThrowsError(try RunState(json: .object(root), workflow: run.workflow)) { error in
            XCTAssertEqual("\(error)", "v: run state version 3 is not supported; this release reads \"version\": 1 (verbose) and \"v\": 2 (compact)")
        }
        root["v"] = 2
        root["steps"] = [["n": "x", "s": "waiting"]]
        XCTAssertThrowsError(try RunState(json: .object(root), workflow: run.workflow)) { error in
            XCTAssertEqual("\(error)", "steps[0].t: is missing")
        }
    }
}
