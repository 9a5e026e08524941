import BuzzEngine
import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest

/// An RFC 3339 instant, or a test failure.
func instant(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Date {
    guard let date = RFC3339.parse(text) else {
        XCTFail("not an instant: \(text)", file: file, line: line)
        return Date(timeIntervalSince1970: 0)
    }
    return date
}

/// Shared test data: the docs/contract.md §2 example, events and helpers to build runs.
enum Fixtures {
    /// The bytes of a file in Tests/BuzzEngineTests/Fixtures (a bundled resource).
    static func data(_ name: String, _ ext: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures") else {
            throw EngineError(code: .invalidArgument, path: name, message: "fixture not bundled")
        }
        return try Data(contentsOf: url)
    }

    /// The docs/contract.md §2 example workflow.
    static let legDay: JSONValue = LegDay.value()

    static func workflow(_ json: JSONValue, file: StaticString = #filePath, line: UInt = #line) -> WorkflowDefinition {
        do {
            return try WorkflowDefinition.parse(json)
        } catch {
            XCTFail("definition refused: \(error)", file: file, line: line)
            return WorkflowDefinition(key: "invalid", triggerEvent: "x", steps: [])
        }
    }

    /// A workflow with the given steps and the leg-day trigger and cancelOn rules.
    static func workflow(steps: [JSONValue], file: StaticString = #filePath, line: UInt = #line) -> WorkflowDefinition {
        guard case .object(var root) = legDay else { fatalError() }
        root["steps"] = .array(steps)
        return workflow(.object(root), file: file, line: line)
    }

    static func trigger(_ properties: [String: JSONValue] = ["workoutId": "w1"], at: String = "2026-11-30T09:00:00Z") -> BuzzEvent {
        BuzzEvent(event: "workout.scheduled", subscriberId: "u_123", properties: properties, timestamp: instant(at))
    }

    static func event(_ name: String, _ properties: [String: JSONValue] = [:], subscriber: String = "u_123") -> BuzzEvent {
        BuzzEvent(event: name, subscriberId: subscriber, properties: properties, timestamp: instant("2026-11-30T10:00:00Z"))
    }

    static let quiet = QuietHours(start: WallClockTime(hour: 22, minute: 0)!, end: WallClockTime(hour: 8, minute: 0)!)!
}
