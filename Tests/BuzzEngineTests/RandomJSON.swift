import BuzzKitWire

/// Random JSON values and mutations.
enum RandomJSON {
    static let words = ["key", "steps", "name", "send", "waitUntil", "delay", "branch", "time", "timezone", "at", "offset", "deliver",
                        "local", "push", "title", "body", "if", "then", "else", "$trigger", "$eq", "$in", "$gt", "$exists", "$regex",
                        "25:00", "07:00", "Europe/Berlin", "subscriber", "-1h30m", "{{trigger.x}}", "{{", "", "cancelOn", "event", "where"]

    static func value(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(.int(Int64.random(in: -5...100_000, using: &generator)))
        case 3: return .number(.double(Double.random(in: -10...10, using: &generator)))
        case 4: return .string(words.randomElement(using: &generator)!)
        case 5: return .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in value(depth: depth - 1, using: &generator) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                members[words.randomElement(using: &generator)!] = value(depth: depth - 1, using: &generator)
            }
            return .object(members)
        }
    }

    /// Replaces, deletes or adds one member somewhere in the tree.
    static func mutate(_ json: JSONValue, using generator: inout SplitMix64) -> JSONValue {
        switch json {
        case .object(var members) where !members.isEmpty && Bool.random(using: &generator):
            let key = members.keys.sorted().randomElement(using: &generator)!
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: members[key] = nil
            case 1: members[key] = value(depth: 2, using: &generator)
            case 2: members[words.randomElement(using: &generator)!] = value(depth: 1, using: &generator)
            default: members[key] = mutate(members[key]!, using: &generator)
            }
            return .object(members)
        case .array(var elements) where !elements.isEmpty:
            let index = Int.random(in: 0..<elements.count, using: &generator)
            if Int.random(in: 0..<5, using: &generator) == 0 { elements.remove(at: index) } else { elements[index] = mutate(elements[index], using: &generator) }
            return .array(elements)
        case .object, .array:
            return json
        default:
            return Bool.random(using: &generator) ? value(depth: 1, using: &generator) : json
        }
    }
}
