import BuzzKitWire
import Foundation
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A scriptable transport that records every request: replies come from a rule, then a
/// FIFO script, then a fallback (202 by default).
final class RecordingTransport: HTTPTransport {
    /// One scripted reply.
    enum Reply: Sendable {
        /// A response with this status (and optional headers and body).
        case status(Int, headers: [String: String] = [:], body: String = "{}")
        /// Fails before sending (no connection).
        case unavailable
        /// Fails in a way that may have reached the server (timeout).
        case timeout
        /// Answers `reply` only after `seconds` of real time (a network or server that hangs).
        indirect case delayed(TimeInterval, Reply)
    }

    private struct State {
        var requests: [HTTPTransportRequest] = []
        var script: [Reply] = []
        var fallback: Reply = .status(202, body: "{\"accepted\":1}")
        var rule: (@Sendable (HTTPTransportRequest) -> Reply?)?
        var plans: [LocalPlan] = []
    }

    private let state = Locked(State())

    /// More requests than any test sends: reaching it means the SDK is storming.
    static let stormLimit = 2_000

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        var reply = state.withLock { state -> Reply in
            state.requests.append(request)
            // A retry storm never ends on a manual clock; stop it loudly instead of filling memory.
            precondition(state.requests.count <= Self.stormLimit, "retry storm: more than \(Self.stormLimit) requests")
            if let rule = state.rule, let reply = rule(request) { return reply }
            // The server's plan list (sync), unless a rule says otherwise.
            if request.method == "GET", request.url.path.hasSuffix("/plans") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let plans = String(decoding: (try? encoder.encode(state.plans)) ?? Data("[]".utf8), as: UTF8.self)
                return .status(200, body: "{\"plans\": \(plans), \"asOf\": \"2026-11-30T09:00:00Z\"}")
            }
            return state.script.isEmpty ? state.fallback : state.script.removeFirst()
        }
        let context = "\(request.method) \(request.url.path)"
        while case .delayed(let seconds, let then) = reply {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            reply = then
        }
        switch reply {
        case .status(let status, let headers, let body):
            return HTTPTransportResponse(status: status, headers: headers, body: Data(body.utf8))
        case .unavailable:
            throw BuzzKitError(.networkUnavailable, context: context, message: "no connection")
        case .timeout:
            throw BuzzKitError(.networkFailure, context: context, message: "timed out")
        case .delayed:
            preconditionFailure("unwrapped above")
        }
    }

    /// The plans the fake server lists for sync (`GET /v1/subscribers/{id}/plans`).
    func setPlans(_ plans: [LocalPlan]) {
        state.withLock { $0.plans = plans }
    }

    /// The plans the fake server lists now.
    var listedPlans: [LocalPlan] { state.withLock { $0.plans } }

    /// Adds a plan to the fake server's list (replacing one with the same id).
    func addPlan(_ plan: LocalPlan) {
        state.withLock { state in
            state.plans.removeAll { $0.id == plan.id }
            state.plans.append(plan)
        }
    }

    /// The sync requests.
    var syncRequests: [HTTPTransportRequest] {
        allRequests.filter { $0.method == "GET" && $0.url.path.hasSuffix("/plans") }
    }

    /// Queues replies for the next requests.
    func script(_ replies: Reply...) {
        state.withLock { $0.script.append(contentsOf: replies) }
    }

    /// The reply once the script is used up.
    func setFallback(_ reply: Reply) {
        state.withLock { $0.fallback = reply }
    }

    /// A rule consulted first for every request (`nil` from it: go on to the script).
    func setRule(_ rule: (@Sendable (HTTPTransportRequest) -> Reply?)?) {
        state.withLock { $0.rule = rule }
    }

    /// Every request so far, syncs included.
    var allRequests: [HTTPTransportRequest] { state.withLock { $0.requests } }

    /// Every request so far but the syncs (`GET …/plans`, sent at every wake).
    var requests: [HTTPTransportRequest] {
        allRequests.filter { !($0.method == "GET" && $0.url.path.hasSuffix("/plans")) }
    }

    /// The `POST /v1/events` requests.
    var eventRequests: [HTTPTransportRequest] {
        requests.filter { $0.method == "POST" && $0.url.path == "/v1/events" }
    }

    /// The events of every posted batch, decoded from the wire.
    var batches: [[BuzzEvent]] {
        eventRequests.map { request in
            struct Batch: Decodable { var events: [BuzzEvent] }
            return (try? JSONDecoder().decode(Batch.self, from: request.body ?? Data()))?.events ?? []
        }
    }

    /// Every posted event, in order (resends included).
    var postedEvents: [BuzzEvent] { batches.flatMap { $0 } }

    /// The device registrations (`PUT /v1/subscribers/{id}/devices`).
    var registrationRequests: [HTTPTransportRequest] {
        allRequests.filter { $0.method == "PUT" && $0.url.path.hasSuffix("/devices") }
    }

    /// The device removals (`DELETE /v1/subscribers/{id}/devices/{token}`).
    var deleteRequests: [HTTPTransportRequest] {
        allRequests.filter { $0.method == "DELETE" }
    }

    /// A request's JSON body as string members (a registration body).
    static func stringBody(_ request: HTTPTransportRequest?) -> [String: String] {
        guard let body = request?.body else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: body)) ?? [:]
    }

    /// Forgets the recorded requests.
    func clearRequests() {
        state.withLock { $0.requests.removeAll() }
    }
}
