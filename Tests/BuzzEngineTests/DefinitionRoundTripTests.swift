import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class DefinitionRoundTripTests: XCTestCase {
    private let rich: JSONValue = [
        "key": "rich.flow_1",
        "trigger": ["event": "order.placed"],
        "cancelOn": [["event": "order.cancelled"],
                     ["event": "order.updated", "where": ["orderId": ["$trigger": "orderId"], "total": ["$gte": 10, "$lt": 500],
                                                          "tags": ["$in": ["a", "b"]], "note": ["$exists": false]]]],
        "steps": [
            ["name": "wait-a-bit", "delay": ["hours": 1, "minutes": 30]],
            ["name": "check", "branch": [
                "if": ["plan": "pro", "country": ["$ne": "DE"]],
                "then": [["name": "at-start", "waitUntil": ["at": "{{trigger.startsAt}}", "offset": "-1h30m"]],
                         ["name": "remind", "send": ["deliver": "local", "title": "Soon: {{trigger.name}}", "body": "Starts at {{trigger.time}}",
                                                     "data": ["n": 1, "f": 0.5, "s": "x"], "quietHours": "ignore"]]],
                "else": [["name": "push-it", "send": ["deliver": "push", "title": "Hi", "body": "", "deepLink": "app://x"]]],
            ]],
            ["name": "evening", "waitUntil": ["time": "19:30:15", "timezone": "Europe/Berlin"]],
        ],
    ]

    func testParsedDefinitionRoundTripsThroughItsJSON() throws {
        let workflow = try WorkflowDefinition.parse(rich)
        let again = try WorkflowDefinition.parse(workflow.jsonValue)
        XCTAssertEqual(again, workflow)
        let coded = try JSONDecoder().decode(WorkflowDefinition.self, from: JSONEncoder().encode(workflow))
        XCTAssertEqual(coded, workflow)
        XCTAssertEqual(workflow.allSteps.map(\.path.description), [
            "steps[0]", "steps[1]", "steps[1].branch.then[0]", "steps[1].branch.then[1]", "steps[1].branch.else[0]", "steps[2]",
        ])
        XCTAssertTrue(workflow.opensLocalWindow(at: StepPath(root: 1, nested: [(.then, 0)])))
        XCTAssertEqual(workflow.step(at: StepPath(root: 1, nested: [(.else, 0)]))?.name, "push-it")
        XCTAssertNil(workflow.step(at: StepPath(root: 1, nested: [(.else, 1)])))
        XCTAssertNil(workflow.step(at: StepPath(root: 0, nested: [(.then, 0)])))
    }

    func testDecodingAnInvalidDefinitionFailsWithItsProblems() {
        let data = Data(#"{"key":"k","trigger":{"event":"e"},"steps":[{"name":"s","send":{"deliver":"loca","title":"T","body":"B"}}]}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(WorkflowDefinition.self, from: data)) { error in
            XCTAssertTrue("\(error)".contains("steps[0].send.deliver"), "\(error)")
        }
    }

    func testStepPathText() {
        let path = StepPath(root: 2, nested: [(.then, 0), (.else, 3)])
        XCTAssertEqual(path.description, "steps[2].branch.then[0].branch.else[3]")
        XCTAssertEqual(StepPath(parsing: path.description), path)
        XCTAssertEqual(path.sibling().description, "steps[2].branch.then[0].branch.else[4]")
        XCTAssertEqual(path.parent?.description, "steps[2].branch.then[0]")
        for bad in ["", "steps", "steps[-1]", "steps[1].branch", "steps[1].branch.maybe[0]", "steps[1].x.then[0]", "steps[a]"] {
            XCTAssertNil(StepPath(parsing: bad), bad)
        }
    }

    func testTemplatesRender() throws {
        let template = try Template(parsing: "{{ trigger.name }} has {{trigger.count}} at {{trigger.place.city}}{{trigger.missing}}; {{trigger.flag}} {{trigger.list}}}}")
        let text = template.render(trigger: ["name": "Maya", "count": 3, "place": ["city": "Berlin"], "flag": true, "list": [1, "a"]])
        XCTAssertEqual(text, #"Maya has 3 at Berlin; true [1,"a"]}}"#)
        XCTAssertTrue(try Template(parsing: "plain").isConstant)
        XCTAssertFalse(template.isConstant)
    }
}
