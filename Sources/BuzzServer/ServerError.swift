/// The one error type of `BuzzServer`: a code, context, and a message a person can act on.
public struct ServerError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable {
        /// A setting is missing or wrong; `field` names it.
        case configuration
        /// A dependency (PostgreSQL, RabbitMQ) is unavailable.
        case unavailable
        /// A message or request could not be understood.
        case invalidInput
        case notFound
        case conflict
        case `internal`
    }

    public var code: Code
    public var message: String
    /// The configuration field, JSON path or parameter concerned.
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String {
        "\(code.rawValue)\(field.map { " (\($0))" } ?? ""): \(message)"
    }
}
