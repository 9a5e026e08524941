/// Input that does not follow the contract: a stable code, a sentence that says what to fix,
/// and the JSON path at fault. The API answers it with 400; a worker dead-letters the message.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code such as `missing_field`, `invalid_type`, `unknown_field`, `invalid_value`.
    public var code: String
    public var message: String
    public var field: String?

    public init(_ message: String, code: String = "invalid_request", field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }
}
