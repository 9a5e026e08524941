/// The one error type of `BuzzServer`: a code, context, and a message a person can act on.
///
/// What to do about a failure is a value, ``outcome``: permanent (the input or setup must
/// change; a queue dead-letters the message at once), an outage (a dependency is down; hold
/// and retry) or worth retrying as it is.
public struct ServerError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable {
        /// A setting is missing or wrong; `field` names it.
        case configuration
        /// A dependency (PostgreSQL, RabbitMQ) is unavailable.
        case unavailable
        /// A message or request could not be understood; `reason` says how (API clients
        /// see it as the error's `code`).
        case invalidInput
        case notFound
        case conflict
        case `internal`
    }

    /// What the caller should do about it.
    public enum Outcome: Sendable, Equatable {
        /// Retrying cannot help: fix the input or the setup (dead-letter a message at once).
        case permanent
        /// A dependency is down: hold the work and retry when it is back.
        case outage
        /// It may work if tried again as it is.
        case retry
    }

    public var code: Code
    public var message: String
    /// The configuration field, JSON path or parameter concerned.
    public var field: String?
    /// A stable machine-readable reason for invalid input, such as `missing_field`,
    /// `invalid_type`, `unknown_field`, `invalid_value` (`invalid_request` when not given).
    public var reason: String?

    public init(_ code: Code, _ message: String, field: String? = nil, reason: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
    }

    /// Input that does not follow the contract: the API answers it with `400` and `reason` as
    /// its code; a worker dead-letters the message.
    public static func input(_ message: String, reason: String = "invalid_request", field: String? = nil) -> ServerError {
        ServerError(.invalidInput, message, field: field, reason: reason)
    }

    public var outcome: Outcome {
        switch code {
        case .configuration, .invalidInput, .notFound, .conflict: return .permanent
        case .unavailable: return .outage
        case .internal: return .retry
        }
    }

    public var description: String {
        if code == .invalidInput { return field.map { "\($0): \(message)" } ?? message }
        return "\(code.rawValue)\(field.map { " (\($0))" } ?? ""): \(message)"
    }
}
