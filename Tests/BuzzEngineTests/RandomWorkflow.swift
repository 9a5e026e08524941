import BuzzEngine
import BuzzKitWire
import Foundation

/// Random valid workflow definitions over the whole grammar.
enum RandomWorkflow {
    static let zones = ["subscriber", "Europe/Berlin", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe", "UTC"]

    static func definition(using generator: inout SplitMix64) -> JSONValue {
        var counter = 0
        let steps = stepList(depth: 0, counter: &counter, using: &generator)
        return ["key": "fuzz", "trigger": ["event": "workout.scheduled"],
                "cancelOn": [["event": "workout.completed"],
                             ["event": "workout.moved", "where": ["workoutId": ["$trigger": "workoutId"]]],
                             ["event": "workout.rated", "where": ["stars": ["$gte": 4]]]],
                "steps": .array(steps)]
    }

    private static func stepList(depth: Int, counter: inout Int, using generator: inout SplitMix64) -> [JSONValue] {
        (0..<Int.random(in: 1...(depth == 0 ? 6 : 3), using: &generator)).map { _ in
            step(depth: depth, counter: &counter, using: &generator)
        }
    }

    private static func step(depth: Int, counter: inout Int, using generator: inout SplitMix64) -> JSONValue {
        counter += 1
        let name = JSONValue.string("s\(counter)")
        switch Int.random(in: 0..<(depth < 2 ? 6 : 5), using: &generator) {
        case 0:
            let time = String(format: "%02d:%02d", Int.random(in: 0..<24, using: &generator), [0, 15, 30, 45].randomElement(using: &generator)!)
            return ["name": name, "waitUntil": ["time": .string(time), "timezone": .string(zones.randomElement(using: &generator)!)]]
        case 1:
            var wait: [String: JSONValue] = ["at": Bool.random(using: &generator) ? "{{trigger.startsAt}}" : "2026-12-01T10:00:00Z"]
            if Bool.random(using: &generator) { wait["offset"] = .string(["-1h30m", "2h", "-3d", "45m"].randomElement(using: &generator)!) }
            return ["name": name, "waitUntil": .object(wait)]
        case 2:
            return ["name": name, "delay": [["seconds", "minutes", "hours"].randomElement(using: &generator)!: .number(.int(Int64.random(in: 0...90, using: &generator)))]]
        case 3, 4:
            return ["name": name, "send": ["deliver": Bool.random(using: &generator) ? "local" : "push",
                                           "title": "Hi {{trigger.name}}", "body": "B",
                                           "quietHours": Bool.random(using: &generator) ? "shift" : "ignore"]]
        default:
            let condition: JSONValue = Bool.random(using: &generator) ? ["plan": "pro"] : ["stars": ["$gt": 2]]
            return ["name": name, "branch": ["if": condition,
                                             "then": .array(stepList(depth: depth + 1, counter: &counter, using: &generator)),
                                             "else": .array(Bool.random(using: &generator) ? [] : stepList(depth: depth + 1, counter: &counter, using: &generator))]]
        }
    }
}
