import BuzzEngine
import BuzzKitWire
import Foundation
import BuzzTesting
import XCTest

/// A send's presentation and buttons (DESIGN §4c): the plan and its fallback carry the same
/// interruption level, sound, thread, badge and category; definitions with values iOS or APNs
/// would not take are refused with their JSON path.
final class RunPresentationTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")
    private let moment = instant("2026-12-01T06:00:00Z")  // 07:00 Berlin

    static let done: JSONValue = ["id": "done", "title": "Done", "event": "workout.completed"]
    static let snooze: JSONValue = ["id": "snooze", "title": "Snooze 10 min", "snooze": "10m"]

    /// Leg day whose send has `extra` members.
    private func legDay(_ extra: [String: JSONValue], deliver: String = "local") -> JSONValue {
        LegDay.value(send: ["deliver": .string(deliver)].merging(extra) { $1 })
    }

    private func run(_ json: JSONValue) -> RunState {
        RunState(workflow: Fixtures.workflow(json), trigger: Fixtures.trigger(),
                 context: RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin"))
    }

    private func refusal(_ json: JSONValue) -> [EngineError] {
        do {
            _ = try WorkflowDefinition.parse(json)
            XCTFail("accepted")
            return []
        } catch {
            return error.problems
        }
    }

    func testThePlanAndItsFallbackCarryTheSamePresentationAndCategory() throws {
        var state = run(legDay(["interruptionLevel": "timeSensitive", "sound": "chime.caf", "threadId": "workouts", "badge": 1,
                                "actions": [Self.done, Self.snooze]]))
        let started = state.handle(.start, now: begins)
        let plan = try XCTUnwrap(started.plans.first).payload.local
        XCTAssertEqual(plan.presentation.interruptionLevel, .timeSensitive)
        XCTAssertEqual(plan.presentation.sound, "chime.caf")
        XCTAssertEqual(plan.presentation.threadId, "workouts")
        XCTAssertEqual(plan.presentation.badge, 1)
        let category = try XCTUnwrap(plan.presentation.category)
        XCTAssertTrue(category.hasPrefix("bk.") && category.count == 19, category)
        XCTAssertEqual(plan.actions.map(\.id), ["done", "snooze"])
        XCTAssertEqual(plan.actions[0].event, "workout.completed")
        XCTAssertEqual(plan.actions[1].snoozeSeconds, 600)
        let read = try LocalPlan(json: try JSONParser.parse(Data(plan.jsonBytes())), path: "")
        XCTAssertEqual(read, plan, "bk.local reads back whole")

        let fallback = try XCTUnwrap(state.handle(.timerFired(try XCTUnwrap(started.timers.first)), now: moment).fallbacks.first)
        let aps = try XCTUnwrap(try JSONParser.parse(Data(fallback.body.utf8))["aps"])
        XCTAssertEqual(aps["interruption-level"], "time-sensitive", "APNs' spelling")
        XCTAssertEqual(aps["sound"], "chime.caf")
        XCTAssertEqual(aps["thread-id"], "workouts")
        XCTAssertEqual(aps["badge"], 1)
        XCTAssertEqual(aps["category"], .string(category), "the same buttons on the fallback")
    }

    func testEqualButtonsShareACategoryAndOtherButtonsGetAnother() {
        let a = PayloadBuilder.categoryId(for: [NotificationAction(id: "done", title: "Done")])
        XCTAssertEqual(a, PayloadBuilder.categoryId(for: [NotificationAction(id: "done", title: "Done")]))
        XCTAssertNotEqual(a, PayloadBuilder.categoryId(for: [NotificationAction(id: "done", title: "Fertig")]))
    }

    func testDefaultsLeaveThePayloadsAsBeforeAndSoundNullIsSilent() throws {
        var plain = run(legDay([:]))
        let started = plain.handle(.start, now: begins)
        let body = try XCTUnwrap(started.plans.first).body
        XCTAssertFalse(body.contains("interruptionLevel") || body.contains("category") || body.contains("actions") || body.contains("sound"), body)
        let fallback = try XCTUnwrap(plain.handle(.timerFired(try XCTUnwrap(started.timers.first)), now: moment).fallbacks.first)
        XCTAssertTrue(fallback.body.contains("\"sound\":\"default\""), fallback.body)

        var silent = run(legDay(["sound": .null]))
        let quiet = silent.handle(.start, now: begins)
        XCTAssertNil(try XCTUnwrap(quiet.plans.first).payload.local.presentation.sound)
        XCTAssertTrue(try XCTUnwrap(quiet.plans.first).body.contains("\"sound\":null"))
        let silentFallback = try XCTUnwrap(silent.handle(.timerFired(try XCTUnwrap(quiet.timers.first)), now: moment).fallbacks.first)
        XCTAssertFalse(silentFallback.body.contains("sound"), "no sound key: iOS plays none")
    }

    func testAPushCarriesThePresentationToo() throws {
        var push = run(legDay(["interruptionLevel": "passive", "actions": [Self.done]], deliver: "push"))
        let timer = try XCTUnwrap(push.handle(.start, now: begins).timers.first)
        let alert = try XCTUnwrap(push.handle(.timerFired(timer), now: moment).pushes.first)
        XCTAssertTrue(alert.body.contains("\"interruption-level\":\"passive\""), alert.body)
        XCTAssertTrue(alert.body.contains("\"category\":\"bk."), alert.body)
    }

    func testBadValuesAreRefusedWithTheirPath() {
        let path = "steps[1].send"
        func expect(_ extra: [String: JSONValue], _ code: EngineError.Code, at member: String, line: UInt = #line) {
            let found = refusal(legDay(extra))
            XCTAssertTrue(found.contains { $0.code == code && $0.path == "\(path).\(member)" },
                          "expected \(code) at \(path).\(member), got \(found.map(\.description))", line: line)
        }
        expect(["interruptionLevel": "critical"], .invalidValue, at: "interruptionLevel")
        expect(["actions": [Self.done, Self.snooze, ["id": "a", "title": "A"], ["id": "b", "title": "B"], ["id": "c", "title": "C"]]],
               .invalidValue, at: "actions")
        expect(["actions": [Self.done, ["id": "done", "title": "Again"]]], .duplicateName, at: "actions[1].id")
        expect(["actions": [["id": "snooze", "title": "Later", "snooze": "soon"]]], .invalidValue, at: "actions[0].snooze")
        expect(["actions": [["id": "snooze", "title": "Later", "snooze": "2d"]]], .invalidValue, at: "actions[0].snooze")
        expect(["actions": [["id": "x", "title": "X", "event": "$push.opened"]]], .invalidValue, at: "actions[0].event")
        expect(["actions": [["id": "x", "title": "X", "colour": "red"]]], .unknownField, at: "actions[0].colour")
        expect(["actions": [["title": "X"]]], .missingField, at: "actions[0].id")
        expect(["badge": -1], .invalidValue, at: "badge")
        expect(["badge": 1.5], .invalidValue, at: "badge")
        expect(["sound": "../etc/passwd"], .invalidValue, at: "sound")
        expect(["expiresAfter": "8d"], .invalidValue, at: "expiresAfter")
    }

    func testFourButtonsWithDataStillFitAPNsLimit() throws {
        let buttons: [JSONValue] = (0..<4).map { .object(["id": .string("b\($0)"), "title": .string(String(repeating: "x", count: 64)),
                                                           "event": .string("workout.completed"), "snooze": "10m"]) }
        var state = run(legDay(["actions": .array(buttons), "data": ["workoutId": "w1"], "threadId": "workouts"]))
        let plan = try XCTUnwrap(state.handle(.start, now: begins).plans.first)
        XCTAssertLessThanOrEqual(plan.body.utf8.count, PayloadBuilder.apnsPayloadLimit)
    }
}
