import BuzzAPI
import BuzzServer
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real API on a random port over an isolated schema and queue prefix, with the
/// pipeline behind it.
final class APIHarness: @unchecked Sendable {
    let pipeline: PipelineHarness
    let server: APIServer
    let runtime: Runtime

    /// `queues`: the workers started behind the API (none with `workers: false`, which also
    /// leaves the scheduler off).
    init(workers: Bool = true, queues: [Topology.Queue] = Topology.Queue.allCases, rateLimits: RateLimits = RateLimits(),
         configure: (inout Configuration) -> Void = { _ in }) throws {
        pipeline = try PipelineHarness(workers: workers ? queues : [], startScheduler: workers)
        var configuration = Configuration()
        configuration.databaseURL = TestServices.databaseURL
        configuration.databaseSchema = pipeline.schema
        configuration.amqpURL = TestServices.amqpURLString
        configuration.rateLimits = rateLimits
        configure(&configuration)
        runtime = try Runtime(configuration: configuration, push: pipeline.push, component: "api-test", topology: pipeline.topology, failFastPublishes: true)
        server = APIServer(runtime: runtime, host: "127.0.0.1", port: 0)
        try server.start()
    }

    func shutdown() {
        server.stop(grace: 1)
        runtime.close()
        pipeline.shutdown()
    }

    var secretKey: String { pipeline.credentials.secretKey }

    var publishableKey: String { pipeline.credentials.publishableKey }

    /// The header a device of `subscriberId` sends with the publishable key (a token valid for an hour).
    func deviceHeaders(_ subscriberId: String) -> [String: String] {
        let expiresAt = Int(Date().timeIntervalSince1970) + 3600
        return ["X-BuzzKit-Subscriber-Token": TenantCredentials.subscriberToken(signingSecret: pipeline.credentials.signingSecret,
                                                                                subscriberId: subscriberId, expiresAt: expiresAt)]
    }

    struct Response {
        var status: Int
        var data: Data
        /// The answer's header fields, names lowercased.
        var headers: [String: String] = [:]
        var json: Any? { try? JSONSerialization.jsonObject(with: data) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
        var errorField: String? { (object["error"] as? [String: Any])?["field"] as? String }
    }

    /// A blocking HTTP call (tests run on XCTest's thread).
    func call(_ method: String, _ path: String, body: Any? = nil, raw: Data? = nil, key: String? = nil,
              headers: [String: String] = [:]) -> Response {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        request.httpMethod = method
        if let raw { request.httpBody = raw } else if let body { request.httpBody = try! JSONSerialization.data(withJSONObject: body) }
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let done = DispatchSemaphore(value: 0)
        let box = ResponseBox()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            let http = response as? HTTPURLResponse
            var headers: [String: String] = [:]
            for (name, value) in http?.allHeaderFields ?? [:] { headers["\(name)".lowercased()] = "\(value)" }
            box.set(Response(status: http?.statusCode ?? 0, data: data ?? Data(), headers: headers))
            done.signal()
        }.resume()
        done.wait()
        return box.value!
    }
}

final class ResponseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: APIHarness.Response?
    func set(_ r: APIHarness.Response) { lock.lock(); stored = r; lock.unlock() }
    var value: APIHarness.Response? { lock.lock(); defer { lock.unlock() }; return stored }
}
