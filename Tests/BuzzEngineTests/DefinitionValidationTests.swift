import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class DefinitionValidationTests: XCTestCase {
    /// The leg-day definition with `edit` applied to its JSON.
    private func legDay(_ edit: (inout [String: JSONValue]) -> Void) -> JSONValue {
        guard case .object(var root) = Fixtures.legDay else { fatalError() }
        edit(&root)
        return .object(root)
    }

    private func steps(_ steps: [JSONValue]) -> JSONValue {
        legDay { $0["steps"] = .array(steps) }
    }

    /// The problems a definition is refused with.
    private func problems(_ json: JSONValue, file: StaticString = #filePath, line: UInt = #line) -> [EngineError] {
        do {
            _ = try WorkflowDefinition.parse(json)
            XCTFail("the definition was accepted", file: file, line: line)
            return []
        } catch {
            XCTAssertEqual(error.code, .invalidDefinition, file: file, line: line)
            XCTAssertFalse(error.problems.isEmpty, file: file, line: line)
            return error.problems
        }
    }

    private func assertProblem(_ json: JSONValue, _ code: EngineError.Code, at path: String, containing text: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        let found = problems(json, file: file, line: line)
        XCTAssertTrue(found.contains { $0.code == code && $0.path == path && $0.message.contains(text) },
                      "expected \(code) at \(path) containing \"\(text)\", got:\n\(found.map(\.description).joined(separator: "\n"))",
                      file: file, line: line)
    }

    func testTheDesignExampleIsValid() throws {
        let workflow = try WorkflowDefinition.parse(Fixtures.legDay)
        XCTAssertEqual(workflow.key, "leg-day")
        XCTAssertEqual(workflow.triggerEvent, "workout.scheduled")
        XCTAssertEqual(workflow.steps.map(\.name), ["morning-of", "nudge"])
        XCTAssertEqual(workflow.deviceCancelOn, ["workout.completed"])
        XCTAssertTrue(workflow.opensLocalWindow(at: StepPath(root: 0)))
        XCTAssertFalse(workflow.opensLocalWindow(at: StepPath(root: 1)))
    }

    func testContractExampleMessage() {
        let json = steps([["name": "nudge", "send": ["deliver": "loca", "title": "T", "body": "B"]]])
        XCTAssertEqual(problems(json).map(\.description), [#"steps[0].send.deliver: expected "local" or "push", got "loca""#])
    }

    func testUnknownStepKind() {
        assertProblem(steps([["name": "a", "sleep": ["seconds": 5]]]), .unknownStepKind, at: "steps[0].sleep", containing: "unknown step kind \"sleep\"")
        assertProblem(steps([["name": "a"]]), .missingField, at: "steps[0]", containing: "has no kind")
        assertProblem(steps([["name": "a", "delay": ["seconds": 1], "send": ["deliver": "push", "title": "T", "body": "B"]]]),
                      .invalidValue, at: "steps[0]", containing: "2 kinds")
    }

    func testMissingFields() {
        let found = problems(steps([["send": ["deliver": "push"]]]))
        let paths = Set(found.filter { $0.code == .missingField }.map(\.path))
        XCTAssertEqual(paths, ["steps[0].name", "steps[0].send.title", "steps[0].send.body"])
        assertProblem(legDay { $0["key"] = nil }, .missingField, at: "key", containing: "needs a key")
        assertProblem(legDay { $0["trigger"] = [:] }, .missingField, at: "trigger.event", containing: "missing")
        assertProblem(legDay { $0["steps"] = nil }, .missingField, at: "steps", containing: "at least one step")
        assertProblem(steps([["name": "w", "waitUntil": ["time": "07:00"]]]), .missingField, at: "steps[0].waitUntil.timezone", containing: "subscriber")
        assertProblem(steps([["name": "w", "waitUntil": [:]]]), .missingField, at: "steps[0].waitUntil", containing: "\"time\"")
        assertProblem(steps([["name": "b", "branch": ["then": [["name": "d", "delay": ["seconds": 1]]]]]]),
                      .missingField, at: "steps[0].branch.if", containing: "condition")
    }

    func testBadTimesAndZones() {
        assertProblem(steps([["name": "w", "waitUntil": ["time": "25:00", "timezone": "subscriber"]]]),
                      .invalidTime, at: "steps[0].waitUntil.time", containing: "got \"25:00\"")
        assertProblem(steps([["name": "w", "waitUntil": ["time": "7:00", "timezone": "subscriber"]]]),
                      .invalidTime, at: "steps[0].waitUntil.time", containing: "HH:MM")
        assertProblem(steps([["name": "w", "waitUntil": ["time": "07:00", "timezone": "Europe/Berln"]]]),
                      .unknownTimeZone, at: "steps[0].waitUntil.timezone", containing: "unknown time zone \"Europe/Berln\"")
        XCTAssertNoThrow(try WorkflowDefinition.parse(steps([["name": "w", "waitUntil": ["time": "07:00:30", "timezone": "Asia/Kathmandu"]]])))
    }

    func testEmptyStepsAndDuplicateNames() {
        assertProblem(steps([]), .invalidValue, at: "steps", containing: "has no steps")
        let duplicate = steps([
            ["name": "nudge", "delay": ["minutes": 5]],
            ["name": "b", "branch": ["if": ["plan": "pro"], "then": [["name": "nudge", "delay": ["seconds": 1]]]]],
        ])
        assertProblem(duplicate, .duplicateName, at: "steps[1].branch.then[0].name", containing: "already used at steps[0].name")
        assertProblem(steps([["name": "my step", "delay": ["seconds": 1]]]), .invalidValue, at: "steps[0].name", containing: "letters, digits")
        assertProblem(steps([["name": "a/b", "delay": ["seconds": 1]]]), .invalidValue, at: "steps[0].name", containing: "letters, digits")
    }

    func testWaitUntilForms() {
        XCTAssertNoThrow(try WorkflowDefinition.parse(steps([["name": "w", "waitUntil": ["at": "{{trigger.startsAt}}", "offset": "-1h30m"]]])))
        XCTAssertNoThrow(try WorkflowDefinition.parse(steps([["name": "w", "waitUntil": ["at": "2026-11-30T09:00:00Z"]]])))
        assertProblem(steps([["name": "w", "waitUntil": ["at": "tomorrow"]]]), .invalidValue, at: "steps[0].waitUntil.at", containing: "RFC 3339")
        assertProblem(steps([["name": "w", "waitUntil": ["time": "07:00", "timezone": "subscriber", "at": "2026-11-30T09:00:00Z"]]]),
                      .invalidValue, at: "steps[0].waitUntil", containing: "both")
        assertProblem(steps([["name": "w", "waitUntil": ["time": "07:00", "timezone": "subscriber", "offset": "1h"]]]),
                      .invalidValue, at: "steps[0].waitUntil.offset", containing: "only goes with \"at\"")
        assertProblem(steps([["name": "w", "waitUntil": ["at": "2026-11-30T09:00:00Z", "timezone": "UTC"]]]),
                      .invalidValue, at: "steps[0].waitUntil.timezone", containing: "only goes with \"time\"")
    }

    func testBadOffsets() {
        for bad in ["1.5h", "-", "", "30x", "1h1h", "30m1h", "h", "1h 30m", "401d", "--1h"] {
            assertProblem(steps([["name": "w", "waitUntil": ["at": "{{trigger.startsAt}}", "offset": .string(bad)]]]),
                          .invalidValue, at: "steps[0].waitUntil.offset", containing: "duration")
        }
        XCTAssertEqual(SignedDuration(parsing: "-1h30m")?.seconds, -5400)
        XCTAssertEqual(SignedDuration(parsing: "+2d")?.seconds, 172_800)
        XCTAssertEqual(SignedDuration(parsing: "1d2h3m4s")?.seconds, 93_784)
        XCTAssertEqual(SignedDuration(parsing: "90s")?.seconds, 90)
    }

    func testBadTemplates() {
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": "Hi {{trigger.name", "body": "B"]]]),
                      .invalidTemplate, at: "steps[0].send.title", containing: "never closed")
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": "T", "body": "Hi {{user.name}}"]]]),
                      .invalidTemplate, at: "steps[0].send.body", containing: "only {{trigger.<property>}}")
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": "T", "body": "Hi {{trigger.}}"]]]),
                      .invalidTemplate, at: "steps[0].send.body", containing: "property path")
        assertProblem(steps([["name": "w", "waitUntil": ["at": "{{trigger..x}}"]]]),
                      .invalidTemplate, at: "steps[0].waitUntil.at", containing: "property path")
    }

    func testUnknownFieldsAreRefusedWithTheirPath() {
        assertProblem(legDay { $0["descripton"] = "typo" }, .unknownField, at: "descripton", containing: "unknown field")
        assertProblem(steps([["name": "w", "waitUntil": ["time": "07:00", "timezone": "subscriber", "tz": "UTC"]]]),
                      .unknownField, at: "steps[0].waitUntil.tz", containing: "expected one of time, timezone, at, offset")
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": "T", "body": "B", "badges": 1]]]),
                      .unknownField, at: "steps[0].send.badges", containing: "unknown field")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "when": [:]]] }, .unknownField, at: "cancelOn[0].when", containing: "event, where")
        assertProblem(steps([["name": "d", "delay": ["weeks": 1]]]), .unknownField, at: "steps[0].delay.weeks", containing: "unknown field")
    }

    func testSendValues() {
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": "", "body": "B"]]]), .invalidValue, at: "steps[0].send.title", containing: "empty")
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": "T", "body": "B", "quietHours": "skip"]]]),
                      .invalidValue, at: "steps[0].send.quietHours", containing: "\"shift\" or \"ignore\"")
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": 3, "body": "B"]]]), .wrongType, at: "steps[0].send.title", containing: "got 3")
        assertProblem(steps([["name": "s", "send": ["deliver": "push", "title": "T", "body": "B", "data": [1]]]]),
                      .wrongType, at: "steps[0].send.data", containing: "an object")
        let huge = JSONValue.string(String(repeating: "x", count: 5000))
        assertProblem(steps([["name": "s", "send": ["deliver": "local", "title": "T", "body": huge]]]),
                      .payloadTooLarge, at: "steps[0].send", containing: "4096")
    }

    func testDelayValues() {
        assertProblem(steps([["name": "d", "delay": ["seconds": -5]]]), .invalidValue, at: "steps[0].delay.seconds", containing: "whole number")
        assertProblem(steps([["name": "d", "delay": ["hours": 1.5]]]), .invalidValue, at: "steps[0].delay.hours", containing: "whole number")
        assertProblem(steps([["name": "d", "delay": [:]]]), .missingField, at: "steps[0].delay", containing: "at least one")
        assertProblem(steps([["name": "d", "delay": ["days": 300, "hours": 2401]]]), .invalidValue, at: "steps[0].delay", containing: "400 days")
        let parsed = try? WorkflowDefinition.parse(steps([["name": "d", "delay": ["hours": 1, "minutes": 30]]]))
        guard case .delay(let delay)? = parsed?.steps.first?.kind else { return XCTFail("not a delay") }
        XCTAssertEqual(delay.totalSeconds, 5400)
    }

    func testConditionProblems() {
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["workoutId": ["$regex": "w.*"]]]] },
                      .unknownOperator, at: "cancelOn[0].where.workoutId.$regex", containing: "unknown operator \"$regex\"")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["$or": []]]] },
                      .unknownOperator, at: "cancelOn[0].where.$or", containing: "property paths")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": [:]]] }, .invalidValue, at: "cancelOn[0].where", containing: "empty")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["n": ["$gt": true]]]] },
                      .wrongType, at: "cancelOn[0].where.n.$gt", containing: "number or a string")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["n": ["$exists": "yes"]]]] },
                      .wrongType, at: "cancelOn[0].where.n.$exists", containing: "true or false")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["n": ["$in": 3]]]] },
                      .wrongType, at: "cancelOn[0].where.n.$in", containing: "array")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["a": ["b": 1]]]] },
                      .invalidValue, at: "cancelOn[0].where.a", containing: "dotted path")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["a..b": 1]]] },
                      .invalidValue, at: "cancelOn[0].where.a..b", containing: "not a property path")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["a": ["$trigger": 5]]]] },
                      .wrongType, at: "cancelOn[0].where.a.$trigger", containing: "string")
        assertProblem(legDay { $0["cancelOn"] = [["event": "x", "where": ["a": ["$eq": ["$ne": 1]]]]] },
                      .invalidValue, at: "cancelOn[0].where.a.$eq", containing: "cannot be nested")
    }

    func testEveryProblemIsReportedAtOnce() {
        let json: JSONValue = [
            "key": "bad key!",
            "trigger": ["event": ""],
            "extra": true,
            "cancelOn": [["event": "x", "where": ["a": ["$like": 1]]]],
            "steps": [
                ["name": "w", "waitUntil": ["time": "25:00", "timezone": "Mars/Base"]],
                ["name": "w", "send": ["deliver": "loca", "title": "T", "body": "{{oops}}"]],
                ["name": "z", "teleport": [:]],
            ],
        ]
        let found = problems(json)
        XCTAssertEqual(Set(found.map(\.path)), [
            "key", "trigger.event", "extra", "cancelOn[0].where.a.$like", "steps[0].waitUntil.time", "steps[0].waitUntil.timezone",
            "steps[1].name", "steps[1].send.deliver", "steps[1].send.body", "steps[2].teleport",
        ])
        XCTAssertTrue(found.allSatisfy { !$0.message.isEmpty })
    }

    func testWrongRootsAndJSON() {
        assertProblem([1, 2], .wrongType, at: "", containing: "workflow definition object")
        assertProblem(legDay { $0["steps"] = "none" }, .wrongType, at: "steps", containing: "array of steps")
        XCTAssertThrowsError(try WorkflowDefinition.parse(data: Data("{not json".utf8))) { error in
            XCTAssertEqual((error as? EngineError)?.code, .invalidJSON)
        }
        XCTAssertNoThrow(try WorkflowDefinition.parse(data: Data(Fixtures.legDay.jsonText.utf8)))
    }

    func testLimits() {
        var deep: JSONValue = ["name": "leaf", "delay": ["seconds": 1]]
        for level in 0..<10 {
            deep = ["name": .string("b\(level)"), "branch": ["if": ["x": 1], "then": [deep]]]
        }
        assertProblem(steps([deep]), .invalidValue, at: "steps[0].branch.then[0].branch.then[0].branch.then[0].branch.then[0].branch.then[0].branch.then[0].branch.then[0].branch.then[0].branch",
                      containing: "deeper than 8")
        let many = (0..<201).map { JSONValue.object(["name": .string("d\($0)"), "delay": ["seconds": 1]]) }
        assertProblem(steps(many), .invalidValue, at: "steps[200]", containing: "at most 200")
    }
}
