import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation

/// BuzzKit's API as a phone's transport sees it, in memory: it records every request and
/// answers as the server does when all is well (registration 200, events 202, an empty plan
/// list for sync). The Apple-layer tests judge what reached the server from here.
final class ModelServer: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [HTTPTransportRequest] = []
    private var plans: [LocalPlan] = []

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        record(request)
        if request.method == "GET", request.url.path.hasSuffix("/plans") {
            let listed = String(decoding: (try? JSONEncoder().encode(livePlans)) ?? Data("[]".utf8), as: UTF8.self)
            return HTTPTransportResponse(status: 200, body: Data(#"{"plans": \#(listed), "asOf": "2026-11-30T09:00:00Z"}"#.utf8))
        }
        if request.url.path.hasSuffix("/events") || request.url.path.hasSuffix("/events/batch") {
            return HTTPTransportResponse(status: 202, body: Data(#"{"accepted": 1}"#.utf8))
        }
        return HTTPTransportResponse(status: 200, body: Data("{}".utf8))
    }

    private func record(_ request: HTTPTransportRequest) {
        lock.lock()
        requests.append(request)
        lock.unlock()
    }

    /// The server sent `plan`: sync lists it from now on.
    func live(_ plan: LocalPlan) {
        lock.lock()
        plans.append(plan)
        lock.unlock()
    }

    private var livePlans: [LocalPlan] {
        lock.lock()
        defer { lock.unlock() }
        return plans
    }

    /// Every request's method, path and body, in order.
    var received: [(method: String, path: String, body: String)] {
        lock.lock()
        defer { lock.unlock() }
        return requests.map { ($0.method, $0.url.path, String(decoding: $0.body ?? Data(), as: UTF8.self)) }
    }

    /// The names of the events the phone sent, in order.
    var eventNames: [String] {
        received.filter { $0.path.contains("/events") }.flatMap { request -> [String] in
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body.utf8)) else { return [] }
            let events = (object as? [String: Any])?["events"] as? [[String: Any]] ?? [object as? [String: Any] ?? [:]]
            return events.compactMap { $0["event"] as? String }
        }
    }

    /// Waits (real time, up to `timeout`) until `condition` holds for what was received.
    func wait(_ what: String, timeout: TimeInterval = 10, until condition: @Sendable (ModelServer) -> Bool,
              file: StaticString = #filePath, line: UInt = #line) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(self) { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition(self)
    }
}
