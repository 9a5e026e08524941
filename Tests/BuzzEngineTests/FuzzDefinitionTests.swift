import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

/// Random and malformed definitions: parsing never crashes, refusals always explain
/// themselves, and whatever is accepted round-trips and runs.
final class FuzzDefinitionTests: XCTestCase {
    func testRandomJSONNeverCrashesTheParser() {
        var generator = SplitMix64(seed: 1)
        for _ in 0..<3000 {
            let json = RandomJSON.value(depth: 4, using: &generator)
            check(json)
        }
    }

    func testMutatedValidDefinitionsNeverCrashTheParser() {
        var generator = SplitMix64(seed: 2)
        var accepted = 0
        for _ in 0..<3000 {
            var json = RandomWorkflow.definition(using: &generator)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                json = RandomJSON.mutate(json, using: &generator)
            }
            if check(json) { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 300, "the mutations should leave some definitions valid")
        XCTAssertLessThan(accepted, 2900, "the mutations should break most definitions")
    }

    func testGeneratedWorkflowsAreValid() {
        var generator = SplitMix64(seed: 3)
        for _ in 0..<500 {
            let json = RandomWorkflow.definition(using: &generator)
            XCTAssertNoThrow(try WorkflowDefinition.parse(json), json.jsonText)
        }
    }

    /// Parses; on success checks the round trip, on failure checks every problem has a message.
    @discardableResult
    private func check(_ json: JSONValue) -> Bool {
        do {
            let workflow = try WorkflowDefinition.parse(json)
            XCTAssertEqual(try WorkflowDefinition.parse(workflow.jsonValue), workflow)
            return true
        } catch {
            XCTAssertEqual(error.code, .invalidDefinition)
            XCTAssertFalse(error.problems.isEmpty, json.jsonText)
            for problem in error.problems {
                XCTAssertFalse(problem.message.isEmpty)
                XCTAssertTrue(problem.problems.isEmpty)
            }
            return false
        }
    }
}
