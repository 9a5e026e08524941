import BuzzCrypto
import Foundation

/// A complete HTTP request as the router sees it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, e.g. `/v1/runs/abc`.
    public var path: String
    public var query: [String: String]
    /// Header names are lower-cased.
    public var headers: [String: String]
    public var body: Data
    /// From `X-Request-Id` when the client sent one, else generated; echoed in the response.
    public var requestId: String
    /// Values of `{name}` segments of the matched route.
    public var pathParameters: [String: String] = [:]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: Data = Data(), requestId: String = RandomIdentifier.text()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
        self.requestId = requestId
    }

    /// A header by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// A `{name}` path parameter, or a 400 naming it.
    public func parameter(_ name: String) throws -> String {
        guard let value = pathParameters[name], !value.isEmpty else {
            throw HTTPError(status: 400, code: "missing_parameter", message: "the path needs a \(name)", field: name)
        }
        return value
    }
}
