import BuzzServer
import Foundation
import HTTPServer
import PostgresClient

/// `/healthz` (the process is alive), `/readyz` (PostgreSQL and RabbitMQ answer) and
/// `/metrics` (Prometheus text, with exact queue depths).
enum HealthRoutes {
    static func register(_ router: inout Router, _ api: APIContext) {
        router.add("GET", "/healthz") { _ in .json(["status": "ok"]) }

        router.add("GET", "/readyz") { _ in
            // Names the dependency that failed; its error text goes to the log, not to callers.
            var failing: [String] = []
            do {
                _ = try await BlockingPool.shared.run { try api.directory.ping() }
            } catch {
                failing.append("postgres")
                api.log.warning("not ready", ["dependency": "postgres", "cause": "\(error)"])
            }
            if !api.broker.isConnected { failing.append("rabbitmq") }
            if failing.isEmpty { return .json(["status": "ready"]) }
            return .json(["status": "not ready", "failing": failing.joined(separator: ","),
                          "problems": failing.map { "\($0) does not answer" }.joined(separator: "; ")], status: 503)
        }

        router.add("GET", "/metrics") { _ in
            let now = api.clock.now
            if let source = api.depths, let depths = try? await BlockingPool.shared.run({ try source.read(now: now) }) {
                for depth in depths {
                    api.metrics.set("buzzkit_queue_messages", ["queue": depth.queue], to: Double(depth.messages), help: "Ready messages in the queue (exact, from the broker)")
                    api.metrics.set("buzzkit_queue_consumers", ["queue": depth.queue], to: Double(depth.consumers), help: "Consumers of the queue")
                }
            }
            return .text(api.metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
