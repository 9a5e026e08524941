import Foundation

/// How fast the server answered the phones, per route, as their requests saw it (the fleet's
/// shared connections and the server's queueing included): what a wake waits for. Beside it,
/// the API's own time handling each route, from its `buzzkit_http_request_seconds` histogram:
/// where the two differ by seconds, the requests waited in the simulator (its connections and
/// its two cores), not in BuzzKit.
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
        /// The API's own handling time (from the request read to the answer written), at the
        /// upper edge of the histogram bucket the median and the 99th percentile fall in.
        public var handledP50: TimeInterval?
        public var handledP99: TimeInterval?
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
            var handled = ""
            if let p50 = route.handledP50, let p99 = route.handledP99 {
                handled = "; the API handled them in p50 \(Self.edge(p50)), p99 \(Self.edge(p99))"
            }
            return String(format: "  %@: %d requests, p50 %.0f ms, p99 %.0f ms, the slowest %.1f s%@%@", route.route, route.count,
                          route.p50 * 1000, route.p99 * 1000, route.slowest, route.failures > 0 ? ", \(route.failures) failed" : "", handled)
        }
    }

    /// Adds the API's own handling times to the routes, from the text of its `/metrics`.
    mutating func addHandling(fromMetrics text: String) {
        let handling = Self.handling(fromMetrics: text)
        for index in routes.indices {
            // `PUT /v1/subscribers/{id}/devices` is the API's route `/v1/subscribers/{id}/devices`.
            let path = routes[index].route.split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
            guard let times = handling[path] else { continue }
            (routes[index].handledP50, routes[index].handledP99) = (times.p50, times.p99)
        }
    }

    /// Per route, the upper edges of the histogram buckets that hold the median and the 99th
    /// percentile of `buzzkit_http_request_seconds` (infinity past the last edge).
    static func handling(fromMetrics text: String) -> [String: (p50: Double, p99: Double)] {
        var buckets: [String: [(edge: Double, count: Double)]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("buzzkit_http_request_seconds_bucket{") {
            guard let route = label("route", in: line), let edge = label("le", in: line),
                  let count = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            buckets[route, default: []].append((edge == "+Inf" ? .infinity : Double(edge) ?? .infinity, count))
        }
        return buckets.compactMapValues { edges in
            let sorted = edges.sorted { $0.edge < $1.edge }
            guard let total = sorted.last?.count, total > 0 else { return nil }
            func quantile(_ q: Double) -> Double { sorted.first { $0.count >= q * total }?.edge ?? .infinity }
            return (quantile(0.5), quantile(0.99))
        }
    }

    /// The value of `name="…"` in a metric line's labels.
    private static func label(_ name: String, in line: Substring) -> String? {
        guard let start = line.range(of: name + "=\""), let end = line[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(line[start.upperBound..<end])
    }

    private static func edge(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "over 10 s" }
        return seconds < 1 ? String(format: "≤ %g ms", seconds * 1000) : String(format: "≤ %g s", seconds)
    }
}
