import BuzzKitWire

extension Condition {
    /// Whether an event's properties meet the condition, with `$trigger` references read
    /// from the trigger event's properties.
    public func matches(_ properties: [String: JSONValue], trigger: [String: JSONValue]) -> Bool {
        for clause in clauses {
            let value = properties.value(at: clause.path.segments)
            for test in clause.tests where !test.holds(for: value, trigger: trigger) {
                return false
            }
        }
        return true
    }

    /// Whether an event meets the condition, given the run's trigger event.
    public func matches(_ event: BuzzEvent, trigger: BuzzEvent) -> Bool {
        matches(event.properties, trigger: trigger.properties)
    }
}

extension Condition.Test {
    /// Whether the test holds for a property value (`nil` when missing).
    public func holds(for value: JSONValue?, trigger: [String: JSONValue]) -> Bool {
        switch self {
        case .exists(let expected):
            return (value != nil) == expected
        case .isIn(let operand):
            guard let value, case .array(let elements)? = operand.resolve(trigger: trigger) else { return false }
            return elements.contains(value)
        case .compare(let op, let operand):
            let other = operand.resolve(trigger: trigger)
            switch op {
            case .eq: return value != nil && other != nil && value == other
            case .ne: return !(value != nil && other != nil && value == other)
            case .gt: return Self.order(value, other).map { $0 > 0 } ?? false
            case .gte: return Self.order(value, other).map { $0 >= 0 } ?? false
            case .lt: return Self.order(value, other).map { $0 < 0 } ?? false
            case .lte: return Self.order(value, other).map { $0 <= 0 } ?? false
            }
        }
    }

    /// -1, 0 or 1 for two numbers or two strings; `nil` for anything else (no order).
    static func order(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Int? {
        switch (lhs, rhs) {
        case (.number(let a)?, .number(let b)?):
            switch JSONNumber.compare(a, b) {
            case .ascending: return -1
            case .same: return 0
            case .descending: return 1
            case .unordered: return nil
            }
        case (.string(let a)?, .string(let b)?):
            return a < b ? -1 : (a == b ? 0 : 1)
        default:
            return nil
        }
    }
}
