import Foundation

/// The one error type of `HTTPServer`. Thrown by handlers, it renders itself as
/// `{"error": {"code", "message", "field"?}}` with its status.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// A stable, machine-readable code such as `invalid_json` or `unauthorized`.
    public var code: String
    /// A sentence that says what to fix.
    public var message: String
    /// The JSON path or parameter at fault.
    public var field: String?
    /// Every problem when there are several (for example an invalid workflow).
    public var problems: [Problem]
    /// Seconds the client should wait before retrying (`Retry-After`), for 429 and 503.
    public var retryAfter: Int?

    /// One problem: where and what.
    public struct Problem: Sendable, Equatable, Encodable {
        public var field: String
        public var message: String
        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    public init(status: Int, code: String, message: String, field: String? = nil, problems: [Problem] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.problems = problems
    }

    struct Body: Encodable {
        struct Inner: Encodable {
            var code: String
            var message: String
            var field: String?
            var problems: [Problem]?
        }
        var error: Inner
    }

    /// The JSON response for this error.
    public var response: HTTPResponse {
        let body = Body(error: .init(code: code, message: message, field: field, problems: problems.isEmpty ? nil : problems))
        let data = (try? HTTPJSON.encoder.encode(body)) ?? Data(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
        var headers = [("Content-Type", "application/json")]
        if let retryAfter { headers.append(("Retry-After", "\(retryAfter)")) }
        return HTTPResponse(status: status, headers: headers, body: data)
    }

    /// `429 rate_limited` with `Retry-After` (whole seconds, at least 1).
    public static func rateLimited(_ message: String, retryAfter seconds: TimeInterval) -> HTTPError {
        var error = HTTPError(status: 429, code: "rate_limited", message: message)
        error.retryAfter = max(1, Int(seconds.rounded(.up)))
        return error
    }

    public var description: String { "\(status) \(code): \(message)\(field.map { " (\($0))" } ?? "")" }

    public static func notFound(_ what: String) -> HTTPError {
        HTTPError(status: 404, code: "not_found", message: "\(what) was not found")
    }

    public static func badRequest(_ message: String, code: String = "invalid_request", field: String? = nil) -> HTTPError {
        HTTPError(status: 400, code: code, message: message, field: field)
    }
}
