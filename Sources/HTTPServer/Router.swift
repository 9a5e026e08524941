import Foundation

/// Matches method + path patterns (`/v1/runs/{id}`) to async handlers.
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    struct Route: Sendable {
        var method: String
        var pattern: String
        var segments: [Substring]
        var handler: Handler
    }

    private var routes: [Route] = []

    public init() {}

    /// Adds a route. `{name}` segments match one path segment and become path parameters.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        routes.append(Route(method: method.uppercased(), pattern: pattern, segments: pattern.split(separator: "/"), handler: handler))
    }

    /// The route pattern a request matches (for metrics labels), or nil.
    public func pattern(for method: String, path: String) -> String? {
        match(method: method, path: path)?.route.pattern
    }

    /// Runs the matching handler; unknown paths get 404, known paths with another method 405.
    /// Thrown `HTTPError`s render themselves; anything else becomes a 500 without internals.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let (route, parameters) = match(method: request.method, path: request.path) else {
            let pathExists = routes.contains { Self.bind($0.segments, request.path.split(separator: "/")) != nil }
            if pathExists {
                return HTTPError(status: 405, code: "method_not_allowed", message: "\(request.method) is not allowed on \(request.path)").response
            }
            return HTTPError(status: 404, code: "not_found", message: "no route for \(request.method) \(request.path)").response
        }
        var request = request
        request.pathParameters = parameters
        do {
            return try await route.handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch let error as HTTPErrorConvertible {
            return error.httpError.response
        } catch {
            return HTTPError(status: 500, code: "internal", message: "the server failed to handle the request; it has been logged (request id \(request.requestId))").response
        }
    }

    private func match(method: String, path: String) -> (route: Route, parameters: [String: String])? {
        let parts = path.split(separator: "/")
        for route in routes where route.method == method {
            if let parameters = Self.bind(route.segments, parts) { return (route, parameters) }
        }
        return nil
    }

    private static func bind(_ pattern: [Substring], _ parts: [Substring]) -> [String: String]? {
        guard pattern.count == parts.count else { return nil }
        var parameters: [String: String] = [:]
        for (p, part) in zip(pattern, parts) {
            if p.first == "{" && p.last == "}" {
                parameters[String(p.dropFirst().dropLast())] = String(part).removingPercentEncoding ?? String(part)
            } else if p != part {
                return nil
            }
        }
        return parameters
    }
}

/// Errors of other modules that know their HTTP rendering.
public protocol HTTPErrorConvertible: Error {
    var httpError: HTTPError { get }
}
