import Foundation

/// How fast the server answered the phones, per route, as their requests saw it (the fleet's
/// shared connections and the server's queueing included): what a wake waits for.
public struct ServerAnswers: Sendable, Codable {
    public struct Route: Sendable, Codable {
        /// `POST /v1/events`, `GET /v1/subscribers/{id}/plans`, …
        public var route: String
        public var count: Int
        /// Requests that failed (no answer, or a 5xx).
        public var failures: Int
        public var p50: TimeInterval
        public var p99: TimeInterval
        public var slowest: TimeInterval
    }

    /// The routes, the busiest first.
    public var routes: [Route] = []

    public init() {}

    init(_ times: [String: TimedTransport.RouteTimes]) {
        routes = times.map { route, times in
            Route(route: route, count: times.seconds.count, failures: times.failures,
                  p50: FleetReport.percentile(times.seconds, 0.5) ?? 0, p99: FleetReport.percentile(times.seconds, 0.99) ?? 0,
                  slowest: times.seconds.max() ?? 0)
        }.sorted { ($0.count, $1.route) > ($1.count, $0.route) }
    }

    /// One line a route, the busiest three: `POST /v1/events 5,210 p50 12 ms p99 340 ms …`.
    var lines: [String] {
        routes.prefix(3).map { route in
            String(format: "  %@: %d requests, p50 %.0f ms, p99 %.0f ms, the slowest %.1f s%@", route.route, route.count,
                   route.p50 * 1000, route.p99 * 1000, route.slowest, route.failures > 0 ? ", \(route.failures) failed" : "")
        }
    }
}
