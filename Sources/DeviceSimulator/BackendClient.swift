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
    public func call(_ method: String, _ path: String, query: [String: String] = [:], body: Any? = nil) async throws -> (status: Int, json: Any?) {
        var url = baseURL.appendingPathComponent(path)
        if !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            url = components.url ?? url
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(secretKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        request.timeoutInterval = 30
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, try? JSONSerialization.jsonObject(with: data))
    }

    /// The API's metrics (`GET /metrics`, Prometheus' text format), or nil when it did not answer.
    public func metricsText() async -> String? {
        var request = URLRequest(url: baseURL.appendingPathComponent("metrics"))
        request.timeoutInterval = 10
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        return String(decoding: data, as: UTF8.self)
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

extension BackendClient {
    /// Like `expect`, but retries for up to `within` seconds while the API answers 5xx or
    /// cannot be reached, as a backend with an idempotent call would. 4xx fails at once.
    @discardableResult
    public func expectEventually(_ method: String, _ path: String, body: Any? = nil, within: Double) async throws -> Any? {
        let deadline = Date().addingTimeInterval(within)
        var pause = 0.2
        while true {
            var failure = ""
            do {
                let (status, json) = try await call(method, path, body: body)
                if (200..<300).contains(status) { return json }
                failure = "\(method) \(path) answered \(status): \(json.map { "\($0)" } ?? "")"
                if status < 500 { throw SimulatorError(failure) }
            } catch let error as SimulatorError {
                throw error
            } catch {
                failure = "\(method) \(path): \(error)"
            }
            guard Date() < deadline else { throw SimulatorError("\(failure) (still failing after \(Int(within)) s of retries)") }
            try await Task.sleep(nanoseconds: UInt64(pause * 1e9))
            pause = min(pause * 2, 2)
        }
    }
}

/// A failure of the simulator itself (not a finding about the system under test).
public struct SimulatorError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
