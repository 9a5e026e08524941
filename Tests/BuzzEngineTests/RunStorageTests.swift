import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class RunStorageTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")

    private func reload(_ state: RunState, file: StaticString = #filePath, line: UInt = #line) -> RunState {
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970 // must not matter
            let data = try encoder.encode(state)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(RunState.self, from: data)
        } catch {
            XCTFail("round trip failed: \(error)", file: file, line: line)
            return state
        }
    }

    func testStateRoundTripsAtEveryStageAndKeepsWorking() throws {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(),
                           context: RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin", quietHours: Fixtures.quiet))
        XCTAssertEqual(reload(run), run)
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        XCTAssertEqual(reload(run), run)
        _ = run.handle(.planDelivered(localId: "run-1/nudge", deviceCount: 2), now: begins)
        var reloaded = reload(run)
        XCTAssertEqual(reloaded, run)
        let actions = reloaded.handle(.timerFired(timer), now: timer.at)
        XCTAssertEqual(actions.fallbacks.count, 1)
        XCTAssertEqual(reload(reloaded), reloaded)
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(reloaded))
        XCTAssertEqual(json["version"], 1)
        XCTAssertEqual(json["steps"]?.arrayValue?.first?["startedAt"], "2026-11-30T09:00:00Z")
        XCTAssertEqual(json["workflow"]?["key"], "leg-day")
    }

    func testUnknownStorageVersionIsRefused() throws {
        let run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(), context: RunContext(runId: "r"))
        guard case .object(var json) = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(run)) else { return XCTFail() }
        json["version"] = 2
        XCTAssertThrowsError(try JSONDecoder().decode(RunState.self, from: Data(JSONValue.object(json).jsonText.utf8)))
        XCTAssertThrowsError(try RunState(json: .object(json), workflow: nil)) { error in
            XCTAssertTrue("\(error)".contains("version 2 is not supported"), "\(error)")
        }
        json["version"] = 1
        json["steps"] = [["name": "x"]]
        XCTAssertThrowsError(try RunState(json: .object(json), workflow: nil)) { error in
            XCTAssertEqual("\(error)", "steps[0].path: is missing")
        }
    }

    /// Instants a state does not have yet are left out of what is stored; states stored with
    /// explicit `null`s (before) read the same.
    func testAbsentInstantsAreLeftOutAndExplicitNullsStillRead() throws {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(),
                           context: RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin"))
        _ = run.handle(.start, now: begins)
        var writer = JSONWriter()
        run.write(to: &writer, includingWorkflow: false)
        let stored = try JSONParser.parse(Data(writer.bytes))
        guard case .array(var steps)? = stored["steps"], case .object(var step) = steps[1], case .object(var local)? = step["local"] else {
            return XCTFail("\(stored)")
        }
        XCTAssertNil(step["finishedAt"])
        XCTAssertNil(local["acknowledgedAt"])
        step["finishedAt"] = .null
        local["acknowledgedAt"] = .null
        step["local"] = .object(local)
        steps[1] = .object(step)
        guard case .object(var older) = stored else { return XCTFail() }
        older["steps"] = .array(steps)
        XCTAssertEqual(try RunState(json: .object(older), workflow: run.workflow), run)
    }

    func testSummaryHasTheContractShape() throws {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(),
                           context: RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin"))
        let timer = try XCTUnwrap(run.handle(.start, now: begins).timers.first)
        _ = run.handle(.planDelivered(localId: "run-1/nudge", deviceCount: 2), now: begins)
        _ = run.handle(.timerFired(timer), now: timer.at)
        let summary = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(run.summary))
        XCTAssertEqual(Set(summary.objectValue?.keys ?? [:].keys), ["id", "workflow", "subscriberId", "dryRun", "status", "steps", "cancelled", "opened"])
        XCTAssertEqual(summary["id"], "run-1")
        XCTAssertEqual(summary["workflow"], "leg-day")
        XCTAssertEqual(summary["subscriberId"], "u_123")
        XCTAssertEqual(summary["dryRun"], false)
        XCTAssertEqual(summary["status"], "completed")
        XCTAssertEqual(summary["cancelled"], .null)
        XCTAssertEqual(summary["opened"], .null, "the server fills in the first open")
        let steps = try XCTUnwrap(summary["steps"]?.arrayValue)
        XCTAssertEqual(steps.count, 2)
        XCTAssertEqual(steps[0], ["name": "morning-of", "status": "completed", "startedAt": "2026-11-30T09:00:00Z",
                                  "finishedAt": "2026-12-01T06:00:00Z", "local": nil, "deliveries": [], "opened": nil, "actions": []])
        XCTAssertEqual(steps[1], [
            "name": "nudge", "status": "fallback sent", "startedAt": "2026-11-30T09:00:00Z", "finishedAt": "2026-12-01T06:00:00Z",
            "local": ["localId": "run-1/nudge", "moment": "2026-12-01T06:00:00Z",
                      "fireAt": ["year": 2026, "month": 12, "day": 1, "hour": 7, "minute": 0, "second": 0],
                      "shiftedByQuietHours": false, "planSentTo": 2, "acknowledged": false, "acknowledgedAt": nil,
                      "fallback": ["sent": true, "idempotencyKey": "run-1/nudge/fallback", "reason": "no device confirmed the schedule"]],
            "deliveries": [], "opened": nil, "actions": [],
        ])
        XCTAssertEqual(try JSONDecoder().decode(RunSummary.self, from: JSONEncoder().encode(run.summary)), run.summary)
    }

    func testCancelledSummary() throws {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(),
                           context: RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin"))
        _ = run.handle(.start, now: begins)
        _ = run.handle(.event(Fixtures.event("workout.completed")), now: instant("2026-11-30T18:00:00Z"))
        let summary = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(run.summary))
        XCTAssertEqual(summary["status"], "cancelled")
        XCTAssertEqual(summary["cancelled"], ["by": "event", "event": "workout.completed", "at": "2026-11-30T18:00:00Z"])
        XCTAssertEqual(summary["steps"]?.arrayValue?.last?["local"]?["fallback"], .null)
        _ = run.handle(.cancel, now: begins)
        var api = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(), context: RunContext(runId: "r2"))
        _ = api.handle(.cancel, now: begins)
        let apiSummary = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(api.summary))
        XCTAssertEqual(apiSummary["cancelled"], ["by": "api", "event": nil, "at": "2026-11-30T09:00:00Z"])
    }

    func testActionsRoundTrip() throws {
        var run = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(),
                           context: RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin"))
        var actions = run.handle(.start, now: begins)
        actions += run.handle(.cancel, now: begins)
        var pushRun = RunState(workflow: Fixtures.workflow(steps: [["name": "p", "send": ["deliver": "push", "title": "T", "body": "B"]]]),
                               trigger: Fixtures.trigger(), context: RunContext(runId: "r2"))
        actions += pushRun.handle(.start, now: begins)
        var fallbackRun = RunState(workflow: Fixtures.workflow(Fixtures.legDay), trigger: Fixtures.trigger(), context: RunContext(runId: "r3"))
        let timer = try XCTUnwrap(fallbackRun.handle(.start, now: begins).timers.first)
        actions += fallbackRun.handle(.timerFired(timer), now: timer.at)
        XCTAssertEqual(Set(actions.map(\.type)), ["scheduleTimer", "cancelTimers", "sendLocalPlan", "sendPush", "sendFallback", "sendCancel", "statusChanged"])
        let decoded = try JSONDecoder().decode([RunAction].self, from: JSONEncoder().encode(actions))
        XCTAssertEqual(decoded, actions)
    }
}
