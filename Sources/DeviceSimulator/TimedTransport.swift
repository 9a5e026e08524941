import BuzzKitOnAppleModel
import Foundation

/// The fleet's one HTTP client, timing every request the phones make by route, so the report
/// can say how fast the server answered what a wake waits for (acknowledgments in
/// `POST /v1/events`, the sync's `GET …/plans`, registrations) as the phones saw it: queueing
/// in the server and on the fleet's shared connections included.
final class TimedTransport: HTTPTransport, @unchecked Sendable {
    /// How the phones saw one route: the seconds each request took, failures included.
    struct RouteTimes: Sendable {
        var seconds: [TimeInterval] = []
        var failures = 0
    }

    let base: any HTTPTransport
    private let lock = NSLock()
    private var times: [String: RouteTimes] = [:]

    init(base: any HTTPTransport) {
        self.base = base
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let route = Self.route(method: request.method, path: request.url.path)
        let started = Date()
        do {
            let response = try await base.send(request)
            record(route, Date().timeIntervalSince(started), failed: response.status >= 500)
            return response
        } catch {
            record(route, Date().timeIntervalSince(started), failed: true)
            throw error
        }
    }

    /// Every route's times so far.
    var routes: [String: RouteTimes] {
        lock.withLock { times }
    }

    private func record(_ route: String, _ seconds: TimeInterval, failed: Bool) {
        lock.withLock {
            times[route, default: RouteTimes()].seconds.append(seconds)
            if failed { times[route, default: RouteTimes()].failures += 1 }
        }
    }

    /// The route a request belongs to, its identifiers replaced by placeholders:
    /// `GET /v1/subscribers/{id}/plans`.
    static func route(method: String, path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var named: [String] = []
        for (index, segment) in segments.enumerated() {
            let previous = index > 0 ? segments[index - 1] : ""
            switch previous {
            case "subscribers": named.append("{id}")
            case "devices": named.append("{token}")
            default: named.append(segment)
            }
        }
        return method + " /" + named.joined(separator: "/")
    }
}
