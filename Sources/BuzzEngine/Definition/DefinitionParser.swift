import BuzzKitWire

/// Walks a definition's JSON, building the model and collecting every problem with its
/// JSON path, so one answer lists everything that needs fixing.
struct DefinitionParser {
    private(set) var problems: [EngineError] = []
    var stepNames: [String: String] = [:]
    var stepCount = 0
    var deviceCancelOn: [String] = []

    /// Branches may nest this deep.
    static let maxBranchDepth = 8
    /// A workflow may have this many steps in all.
    static let maxSteps = 200
    /// Longest workflow key and event name, in bytes.
    static let maxKeyLength = 128
    static let maxEventNameLength = 256
    /// Longest step name, in bytes.
    static let maxStepNameLength = 64

    mutating func parseWorkflow(_ json: JSONValue) -> WorkflowDefinition? {
        guard let root = object(json, at: "", expected: "a workflow definition object") else { return nil }
        refuseUnknown(root, allowed: ["key", "trigger", "cancelOn", "steps"], at: "")
        let key = required(root, "key", at: "", hint: "every workflow needs a key such as \"leg-day\"")
            .flatMap { identifier($0, at: "key", maxLength: DefinitionParser.maxKeyLength) }
        let trigger = required(root, "trigger", at: "", hint: "add {\"event\": \"<event name>\"} to say which event starts a run")
            .flatMap { parseTrigger($0, at: "trigger") }
        let cancelOn = root["cancelOn"].flatMap { parseCancelOn($0, at: "cancelOn") } ?? []
        var names: [String] = []
        for rule in cancelOn where rule.condition == nil && !names.contains(rule.event) { names.append(rule.event) }
        deviceCancelOn = names
        let steps = required(root, "steps", at: "", hint: "a workflow needs at least one step")
            .flatMap { parseStepList($0, at: "steps", depth: 0, allowEmpty: false) }
        guard problems.isEmpty, let key, let trigger, let steps else { return nil }
        return WorkflowDefinition(key: key, triggerEvent: trigger, cancelOn: cancelOn, steps: steps)
    }

    private mutating func parseTrigger(_ value: JSONValue, at path: String) -> String? {
        guard let members = object(value, at: path, expected: "an object such as {\"event\": \"workout.scheduled\"}") else { return nil }
        refuseUnknown(members, allowed: ["event"], at: path)
        return required(members, "event", at: path, hint: "name the event that starts a run")
            .flatMap { eventName($0, at: join(path, "event")) }
    }

    private mutating func parseCancelOn(_ value: JSONValue, at path: String) -> [WorkflowDefinition.CancelRule]? {
        guard case .array(let elements) = value else {
            report(.wrongType, path, "expected an array of {\"event\", \"where\"?} rules, got \(describe(value))")
            return nil
        }
        var rules: [WorkflowDefinition.CancelRule] = []
        for (index, element) in elements.enumerated() {
            let rulePath = "\(path)[\(index)]"
            guard let members = object(element, at: rulePath, expected: "an object such as {\"event\": \"workout.completed\"}") else { continue }
            refuseUnknown(members, allowed: ["event", "where"], at: rulePath)
            let event = required(members, "event", at: rulePath, hint: "name the event that cancels the run")
                .flatMap { eventName($0, at: join(rulePath, "event")) }
            var condition: Condition?
            if let whereValue = members["where"] {
                condition = parseCondition(whereValue, at: join(rulePath, "where"))
                if condition == nil { continue }
            }
            if let event { rules.append(WorkflowDefinition.CancelRule(event: event, condition: condition)) }
        }
        return rules
    }

    // MARK: - Helpers

    mutating func report(_ code: EngineError.Code, _ path: String, _ message: String) {
        problems.append(EngineError(code: code, path: path, message: message))
    }

    func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// A short rendering of a value for "got …" in messages.
    func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return "\"\(text.count > 60 ? String(text.prefix(57)) + "..." : text)\""
        case .number(let number): return number.description
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    mutating func object(_ value: JSONValue, at path: String, expected: String) -> [String: JSONValue]? {
        guard case .object(let members) = value else {
            report(.wrongType, path, "expected \(expected), got \(describe(value))")
            return nil
        }
        return members
    }

    mutating func refuseUnknown(_ members: [String: JSONValue], allowed: [String], at path: String) {
        for key in members.keys.sorted() where !allowed.contains(key) {
            report(.unknownField, join(path, key), "unknown field \"\(key)\"; expected one of \(allowed.joined(separator: ", "))")
        }
    }

    mutating func required(_ members: [String: JSONValue], _ key: String, at path: String, hint: String) -> JSONValue? {
        guard let value = members[key] else {
            report(.missingField, join(path, key), "missing; \(hint)")
            return nil
        }
        return value
    }

    mutating func string(_ value: JSONValue, at path: String, nonEmpty: Bool = true) -> String? {
        guard case .string(let text) = value else {
            report(.wrongType, path, "expected a string, got \(describe(value))")
            return nil
        }
        if nonEmpty && text.isEmpty {
            report(.invalidValue, path, "is empty; give it a value")
            return nil
        }
        return text
    }

    mutating func eventName(_ value: JSONValue, at path: String) -> String? {
        guard let text = string(value, at: path) else { return nil }
        guard text.utf8.count <= DefinitionParser.maxEventNameLength else {
            report(.invalidValue, path, "is longer than \(DefinitionParser.maxEventNameLength) bytes; use a shorter event name")
            return nil
        }
        return text
    }

    /// A key or step name: ASCII letters, digits, `.`, `_`, `-`, starting with a letter or digit.
    mutating func identifier(_ value: JSONValue, at path: String, maxLength: Int) -> String? {
        guard let text = string(value, at: path) else { return nil }
        let bytes = Array(text.utf8)
        let isAlnum: (UInt8) -> Bool = { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
        let valid = bytes.count <= maxLength && isAlnum(bytes[0])
            && bytes.allSatisfy { isAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        guard valid else {
            report(.invalidValue, path,
                   "expected 1 to \(maxLength) letters, digits, \".\", \"_\" or \"-\" starting with a letter or digit, got \(describe(value))")
            return nil
        }
        return text
    }
}
