/// The engine's one error type: a machine-readable code, the JSON path (or argument) it is
/// about, and a sentence a person can act on.
///
/// Validation reports every problem at once: the thrown error has code
/// ``Code/invalidDefinition`` and lists each problem in ``problems``, each with its own path
/// (`steps[1].send.deliver: expected "local" or "push", got "loca"`).
public struct EngineError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// What went wrong, for programs.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// The input is not JSON.
        case invalidJSON = "invalid_json"
        /// A workflow definition has problems; see ``EngineError/problems``.
        case invalidDefinition = "invalid_definition"
        /// A member the format does not define.
        case unknownField = "unknown_field"
        /// A required member is absent.
        case missingField = "missing_field"
        /// A member has the wrong JSON type.
        case wrongType = "wrong_type"
        /// A member has a value outside what it accepts.
        case invalidValue = "invalid_value"
        /// A step with an unknown kind.
        case unknownStepKind = "unknown_step_kind"
        /// Two steps share a name.
        case duplicateName = "duplicate_name"
        /// A condition uses an operator that does not exist.
        case unknownOperator = "unknown_operator"
        /// A time zone name that is not a known IANA zone.
        case unknownTimeZone = "unknown_time_zone"
        /// A wall-clock time that is not `HH:MM[:SS]`.
        case invalidTime = "invalid_time"
        /// A `{{…}}` template that does not parse.
        case invalidTemplate = "invalid_template"
        /// A push body over APNs' 4096-byte limit.
        case payloadTooLarge = "payload_too_large"
        /// An `at` instant that cannot be resolved when the wait begins.
        case unresolvedInstant = "unresolved_instant"
        /// A bad command-line or API argument.
        case invalidArgument = "invalid_argument"
    }

    /// What went wrong.
    public var code: Code
    /// The JSON path or argument name the error is about (`steps[1].send.deliver`);
    /// empty when it is about the whole input.
    public var path: String
    /// A sentence a person can act on.
    public var message: String
    /// The individual problems, for ``Code/invalidDefinition``; empty otherwise.
    public var problems: [EngineError]

    /// An error from its parts.
    public init(code: Code, path: String, message: String, problems: [EngineError] = []) {
        self.code = code
        self.path = path
        self.message = message
        self.problems = problems
    }

    /// `path: message`, or the message alone when there is no path; for an invalid
    /// definition, one line per problem.
    public var description: String {
        let head = path.isEmpty ? message : "\(path): \(message)"
        guard !problems.isEmpty else { return head }
        return ([head] + problems.map { "  - \($0.description)" }).joined(separator: "\n")
    }
}
