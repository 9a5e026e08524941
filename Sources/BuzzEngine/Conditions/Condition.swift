import BuzzKitWire

/// A condition (`where`, `if`): a JSON object whose keys are property paths of the event and
/// whose values are a literal (equality), `{"$trigger": "<path>"}` (equality with the
/// trigger's property) or an object of operators (`$eq $ne $in $gt $gte $lt $lte $exists`).
/// Every key must match.
///
/// Evaluation rules: a missing property equals nothing (so `$eq` is false and `$ne` true);
/// `$gt`/`$gte`/`$lt`/`$lte` compare two numbers or two strings and are false for anything
/// else; a `$trigger` reference to a missing trigger property is missing too.
public struct Condition: Sendable, Hashable {
    /// The clauses, one per key; all must match.
    public var clauses: [Clause]

    /// A condition from its clauses.
    public init(clauses: [Clause]) {
        self.clauses = clauses
    }

    /// One key of a condition: a property path and the tests it must pass (all of them).
    public struct Clause: Sendable, Hashable {
        /// The event property the tests look at.
        public var path: Condition.PropertyPath
        /// The tests; every one must hold.
        public var tests: [Test]

        /// A clause from its parts.
        public init(path: Condition.PropertyPath, tests: [Test]) {
            self.path = path
            self.tests = tests
        }
    }

    /// One test on a property.
    public enum Test: Sendable, Hashable {
        /// `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte` against an operand.
        case compare(Operator, Operand)
        /// `$in`: the property equals one element of the operand, which is an array literal or
        /// a `$trigger` reference to an array.
        case isIn(Operand)
        /// `$exists`: whether the property is present (a `null` value is present).
        case exists(Bool)
    }

    /// A comparing operator. Raw values are the JSON operator names.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `$eq`: JSON equality (numbers compare by value: `1` equals `1.0`).
        case eq = "$eq"
        /// `$ne`: not `$eq`; also true when the property is missing.
        case ne = "$ne"
        /// `$gt`: greater than, for two numbers or two strings.
        case gt = "$gt"
        /// `$gte`: greater than or equal, for two numbers or two strings.
        case gte = "$gte"
        /// `$lt`: less than, for two numbers or two strings.
        case lt = "$lt"
        /// `$lte`: less than or equal, for two numbers or two strings.
        case lte = "$lte"

        /// Every operator name a condition accepts, `$in` and `$exists` included.
        public static let allNames = ["$eq", "$ne", "$in", "$gt", "$gte", "$lt", "$lte", "$exists"]
    }

    /// The right-hand side of a test: a literal, or `{"$trigger": "<path>"}` (the run's
    /// trigger event's property at that path).
    public enum Operand: Sendable, Hashable {
        /// A JSON literal.
        case literal(JSONValue)
        /// The trigger event's property at a path; missing when the trigger has none.
        case trigger(Condition.PropertyPath)

        /// The operand's value for a trigger, or `nil` when a referenced property is missing.
        public func resolve(trigger: [String: JSONValue]) -> JSONValue? {
            switch self {
            case .literal(let value): return value
            case .trigger(let path): return trigger.value(at: path.segments)
            }
        }

        /// The JSON form.
        public var jsonValue: JSONValue {
            switch self {
            case .literal(let value): return value
            case .trigger(let path): return .object(["$trigger": .string(path.description)])
            }
        }
    }

    /// A dotted property path into an event's `properties` (`workout.id`, `items.0.sku`).
    /// Segments are object keys, or array indexes in decimal.
    public struct PropertyPath: Sendable, Hashable, CustomStringConvertible {
        /// The segments, outermost first.
        public let segments: [String]

        /// Parses a dotted path; `nil` for an empty path or an empty segment (`a..b`, `.a`).
        public init?(parsing text: String) {
            let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !text.isEmpty, !segments.contains(where: \.isEmpty) else { return nil }
            self.segments = segments
        }

        /// The dotted text.
        public var description: String { segments.joined(separator: ".") }
    }

    /// The JSON form (the canonical spelling: operators always in an object).
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        for clause in clauses {
            var tests: [String: JSONValue] = [:]
            for test in clause.tests {
                switch test {
                case .compare(let op, let operand): tests[op.rawValue] = operand.jsonValue
                case .isIn(let operand): tests["$in"] = operand.jsonValue
                case .exists(let flag): tests["$exists"] = .bool(flag)
                }
            }
            members[clause.path.description] = .object(tests)
        }
        return .object(members)
    }
}
