import BuzzKitWire

extension DefinitionParser {
    private static var operatorList: String { Condition.Operator.allNames.joined(separator: ", ") }

    mutating func parseCondition(_ value: JSONValue, at path: String) -> Condition? {
        guard let members = object(value, at: path, expected: "a condition object such as {\"workoutId\": {\"$trigger\": \"workoutId\"}}") else {
            return nil
        }
        guard !members.isEmpty else {
            report(.invalidValue, path, "is empty and would match every event; remove it or name a property to test")
            return nil
        }
        var clauses: [Condition.Clause] = []
        var valid = true
        for key in members.keys.sorted() {
            let keyPath = join(path, key)
            if key.hasPrefix("$") {
                report(.unknownOperator, keyPath,
                       "unknown operator \"\(key)\" as a condition key; keys are property paths and every key must match, "
                           + "with operators (\(DefinitionParser.operatorList)) inside a property's object")
                valid = false
                continue
            }
            guard let propertyPath = Condition.PropertyPath(parsing: key) else {
                report(.invalidValue, keyPath, "\"\(key)\" is not a property path; use dotted names such as \"workout.id\"")
                valid = false
                continue
            }
            guard let tests = parseTests(members[key]!, at: keyPath) else {
                valid = false
                continue
            }
            clauses.append(Condition.Clause(path: propertyPath, tests: tests))
        }
        return valid ? Condition(clauses: clauses) : nil
    }

    private mutating func parseTests(_ value: JSONValue, at path: String) -> [Condition.Test]? {
        guard case .object(let members) = value else { return [.compare(.eq, .literal(value))] }
        if members.isEmpty {
            report(.invalidValue, path, "is an empty object; use {\"$exists\": true} to require the property, or {\"$eq\": {}} to compare with {}")
            return nil
        }
        if members.count == 1, members["$trigger"] != nil {
            return triggerReference(members["$trigger"]!, at: join(path, "$trigger")).map { [.compare(.eq, .trigger($0))] }
        }
        let plainKeys = members.keys.filter { !$0.hasPrefix("$") }
        guard plainKeys.isEmpty else {
            report(.invalidValue, path,
                   "an object here must hold operators (\(DefinitionParser.operatorList)); test nested properties with a dotted path such as \"\(path.split(separator: ".").last ?? "a").\(plainKeys.sorted()[0])\", or compare whole objects with {\"$eq\": {…}}")
            return nil
        }
        var tests: [Condition.Test] = []
        var valid = true
        for name in members.keys.sorted() {
            let operatorPath = join(path, name)
            let operand = members[name]!
            let test: Condition.Test?
            switch name {
            case "$exists":
                if case .bool(let flag) = operand {
                    test = .exists(flag)
                } else {
                    report(.wrongType, operatorPath, "expected true or false, got \(describe(operand))")
                    test = nil
                }
            case "$in":
                test = parseInOperand(operand, at: operatorPath).map(Condition.Test.isIn)
            case "$trigger":
                report(.invalidValue, operatorPath,
                       "\"$trigger\" stands alone; to use it with an operator write {\"$ne\": {\"$trigger\": \"<path>\"}}")
                test = nil
            default:
                if let op = Condition.Operator(rawValue: name) {
                    test = parseOperand(operand, at: operatorPath, orderable: ![.eq, .ne].contains(op)).map { .compare(op, $0) }
                } else {
                    report(.unknownOperator, operatorPath, "unknown operator \"\(name)\"; expected one of \(DefinitionParser.operatorList)")
                    test = nil
                }
            }
            if let test { tests.append(test) } else { valid = false }
        }
        return valid ? tests : nil
    }

    private mutating func parseOperand(_ value: JSONValue, at path: String, orderable: Bool) -> Condition.Operand? {
        if case .object(let members) = value, members.keys.contains(where: { $0.hasPrefix("$") }) {
            guard members.count == 1, let reference = members["$trigger"] else {
                report(.invalidValue, path, "operators cannot be nested; the only object with \"$\" keys allowed here is {\"$trigger\": \"<path>\"}")
                return nil
            }
            return triggerReference(reference, at: join(path, "$trigger")).map(Condition.Operand.trigger)
        }
        if orderable {
            switch value {
            case .number, .string: break
            default:
                report(.wrongType, path, "expected a number or a string to compare with, got \(describe(value))")
                return nil
            }
        }
        return .literal(value)
    }

    private mutating func parseInOperand(_ value: JSONValue, at path: String) -> Condition.Operand? {
        switch value {
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if case .object(let members) = element, members.keys.contains(where: { $0.hasPrefix("$") }) {
                    report(.invalidValue, "\(path)[\(index)]",
                           "elements of $in are literals; to test against a list on the trigger write {\"$in\": {\"$trigger\": \"<path>\"}}")
                    return nil
                }
            }
            return .literal(value)
        case .object(let members) where members.count == 1 && members["$trigger"] != nil:
            return triggerReference(members["$trigger"]!, at: join(path, "$trigger")).map(Condition.Operand.trigger)
        default:
            report(.wrongType, path, "expected an array of values or {\"$trigger\": \"<path>\"}, got \(describe(value))")
            return nil
        }
    }

    private mutating func triggerReference(_ value: JSONValue, at path: String) -> Condition.PropertyPath? {
        guard let text = string(value, at: path) else { return nil }
        guard let propertyPath = Condition.PropertyPath(parsing: text) else {
            report(.invalidValue, path, "\"\(text)\" is not a property path; use dotted names such as \"workout.id\"")
            return nil
        }
        return propertyPath
    }
}
