import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The tenant's backend as the simulator plays it: calls the API with the secret key.
public struct BackendClient: Sendable {
    public let baseURL: URL
    public let secretKey: String

    public init(baseURL: URL, secretKey: String) {
        self.baseURL = baseURL
        self.secretKey = secretKey
    }

    /// Sends `body` (JSON) and returns the status and decoded JSON object.
    @discardableResult
    public func call(_ method: String, _ path: String, body: Any? = nil) async throws -> (status: Int, json: Any?) {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(secretKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        request.timeoutInterval = 30
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, try? JSONSerialization.jsonObject(with: data))
    }

    /// Fails unless the call answered 2xx.
    @discardableResult
    public func expect(_ method: String, _ path: String, body: Any? = nil) async throws -> Any? {
        let (status, json) = try await call(method, path, body: body)
        guard (200..<300).contains(status) else {
            throw SimulatorError("\(method) \(path) answered \(status): \(json.map { "\($0)" } ?? "")")
        }
        return json
    }
}

/// A failure of the simulator itself (not a finding about the system under test).
public struct SimulatorError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
