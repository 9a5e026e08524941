import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class ConditionTests: XCTestCase {
    private let trigger: [String: JSONValue] = ["workoutId": "w1", "limit": 10, "tags": ["a", "b"], "coach": ["name": "Maya"]]

    /// Parses `condition` as a cancelOn `where` and evaluates it.
    private func matches(_ condition: JSONValue, _ properties: [String: JSONValue],
                         file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let json: JSONValue = ["key": "k", "trigger": ["event": "t"], "cancelOn": [["event": "e", "where": condition]],
                               "steps": [["name": "d", "delay": ["seconds": 1]]]]
        guard let rule = (try? WorkflowDefinition.parse(json))?.cancelOn.first, let parsed = rule.condition else {
            XCTFail("condition refused: \(condition.jsonText)", file: file, line: line)
            return false
        }
        return parsed.matches(properties, trigger: trigger)
    }

    func testLiteralsAndTriggerReferences() {
        XCTAssertTrue(matches(["workoutId": "w1"], ["workoutId": "w1"]))
        XCTAssertFalse(matches(["workoutId": "w1"], ["workoutId": "w2"]))
        XCTAssertFalse(matches(["workoutId": "w1"], [:]))
        XCTAssertTrue(matches(["workoutId": ["$trigger": "workoutId"]], ["workoutId": "w1"]))
        XCTAssertFalse(matches(["workoutId": ["$trigger": "workoutId"]], ["workoutId": "w9"]))
        XCTAssertFalse(matches(["workoutId": ["$trigger": "missing"]], ["workoutId": "w1"]))
        XCTAssertTrue(matches(["coach.name": ["$trigger": "coach.name"]], ["coach": ["name": "Maya"]]))
        XCTAssertTrue(matches(["n": 1], ["n": 1.0]))
        XCTAssertTrue(matches(["flag": nil], ["flag": nil]))
        XCTAssertFalse(matches(["flag": nil], [:]))
        XCTAssertTrue(matches(["list": [1, 2]], ["list": [1, 2]]))
    }

    func testEveryKeyMustMatch() {
        let condition: JSONValue = ["workoutId": ["$trigger": "workoutId"], "kind": "legs"]
        XCTAssertTrue(matches(condition, ["workoutId": "w1", "kind": "legs"]))
        XCTAssertFalse(matches(condition, ["workoutId": "w1", "kind": "arms"]))
        XCTAssertFalse(matches(condition, ["kind": "legs"]))
    }

    func testOperators() {
        XCTAssertTrue(matches(["n": ["$eq": 3]], ["n": 3]))
        XCTAssertTrue(matches(["n": ["$ne": 3]], ["n": 4]))
        XCTAssertTrue(matches(["n": ["$ne": 3]], [:]))
        XCTAssertFalse(matches(["n": ["$ne": 3]], ["n": 3.0]))
        XCTAssertTrue(matches(["n": ["$gt": 3]], ["n": 3.5]))
        XCTAssertFalse(matches(["n": ["$gt": 3]], ["n": 3]))
        XCTAssertTrue(matches(["n": ["$gte": 3]], ["n": 3]))
        XCTAssertTrue(matches(["n": ["$lt": ["$trigger": "limit"]]], ["n": 9]))
        XCTAssertFalse(matches(["n": ["$lt": ["$trigger": "limit"]]], ["n": 10]))
        XCTAssertTrue(matches(["n": ["$lte": ["$trigger": "limit"]]], ["n": 10]))
        XCTAssertFalse(matches(["n": ["$gt": 3]], ["n": "4"]))
        XCTAssertFalse(matches(["n": ["$gt": 3]], [:]))
        XCTAssertTrue(matches(["at": ["$gte": "2026-11-30T09:00:00Z"]], ["at": "2026-12-01T07:00:00Z"]))
        XCTAssertTrue(matches(["n": ["$gt": 1, "$lt": 5]], ["n": 2]))
        XCTAssertFalse(matches(["n": ["$gt": 1, "$lt": 5]], ["n": 6]))
    }

    func testInAndExists() {
        XCTAssertTrue(matches(["tag": ["$in": ["a", "c"]]], ["tag": "a"]))
        XCTAssertFalse(matches(["tag": ["$in": ["a", "c"]]], ["tag": "b"]))
        XCTAssertFalse(matches(["tag": ["$in": ["a", "c"]]], [:]))
        XCTAssertTrue(matches(["tag": ["$in": ["$trigger": "tags"]]], ["tag": "b"]))
        XCTAssertFalse(matches(["tag": ["$in": ["$trigger": "workoutId"]]], ["tag": "w1"]))
        XCTAssertTrue(matches(["note": ["$exists": true]], ["note": nil]))
        XCTAssertFalse(matches(["note": ["$exists": true]], [:]))
        XCTAssertTrue(matches(["note": ["$exists": false]], [:]))
        XCTAssertTrue(matches(["items.1.sku": "B"], ["items": [["sku": "A"], ["sku": "B"]]]))
    }

    func testEventOverloadAndJSONForm() throws {
        let condition = Condition(clauses: [Condition.Clause(path: Condition.PropertyPath(parsing: "workoutId")!,
                                                            tests: [.compare(.eq, .trigger(Condition.PropertyPath(parsing: "workoutId")!))])])
        let trigger = Fixtures.trigger()
        XCTAssertTrue(condition.matches(Fixtures.event("workout.moved", ["workoutId": "w1"]), trigger: trigger))
        XCTAssertEqual(condition.jsonValue, ["workoutId": ["$eq": ["$trigger": "workoutId"]]])
    }

    func testDeviceCancelOnIsTheRulesWithoutWhere() throws {
        let json: JSONValue = ["key": "k", "trigger": ["event": "t"],
                               "cancelOn": [["event": "a"], ["event": "b", "where": ["x": 1]], ["event": "c"], ["event": "a"]],
                               "steps": [["name": "d", "delay": ["seconds": 1]]]]
        XCTAssertEqual(try WorkflowDefinition.parse(json).deviceCancelOn, ["a", "c"])
    }
}
