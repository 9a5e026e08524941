import Foundation

/// The answer to an ``HTTPRequest``: an HTTP status with headers and body, or a transport
/// failure (connection refused, TLS, timeout, closed provider) with `status` 0.
struct HTTPResponse: Sendable {
    /// The HTTP status, or 0 when no answer came.
    var status: Int
    /// Response header fields, names lowercased (the last value wins for repeats).
    var headers: [String: String]
    /// The response body.
    var body: Data
    /// What went wrong below HTTP, or `nil` when an answer came.
    var transportError: String?
    /// How many new connections this request opened (0 when it reused one).
    var newConnections: Int

    /// A transport failure.
    static func failure(_ reason: String) -> HTTPResponse {
        HTTPResponse(status: 0, headers: [:], body: Data(), transportError: reason, newConnections: 0)
    }
}
