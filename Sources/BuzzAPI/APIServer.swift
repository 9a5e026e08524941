import AMQPClient
import BuzzServer
import Foundation
import HTTPServer

/// `buzzkit api`: the stateless HTTP front door.
public final class APIServer: Service, @unchecked Sendable {
    let http: HTTPServer
    private let shutdownRequest = ShutdownRequest()
    public let name = "api"
    let router: Router
    let tenantChanges: TenantChangeListener

    /// Builds the routes over `runtime` and binds `host:port`.
    public init(runtime: Runtime, host: String = "0.0.0.0", port: Int) {
        let configuration = runtime.configuration
        let api = APIRoutes(directory: PostgresDirectory(pool: runtime.pool),
                            commands: RunCommands(context: runtime.context, broker: runtime.broker, outbox: PostgresOutbox(pool: runtime.pool)),
                            broker: runtime.broker, topology: runtime.topology, metrics: runtime.metrics, clock: runtime.context.clock, log: runtime.log,
                            rateLimits: configuration.rateLimits, maxSubscriberTokenDays: configuration.maxSubscriberTokenDays,
                            maxDevicesPerSubscriber: configuration.maxDevicesPerSubscriber,
                            depths: QueueDepths(amqp: runtime.amqp, topology: runtime.topology),
                            deadLetters: BrokerDeadLetters(letters: DeadLetters(topology: runtime.topology, amqp: runtime.amqp), broker: runtime.broker))
        self.router = api.router
        let authenticator = api.context.authenticator
        let cancels = api.context.commands.acceptedCancels
        tenantChanges = TenantChangeListener(databaseURL: runtime.databaseURL, log: runtime.log) {
            authenticator.invalidate(tenantId: $0)
            cancels.forget(tenantId: $0)
        }
        let routes = api.router
        let metrics = runtime.metrics
        let log = runtime.log
        let limits = runtime.configuration
        var options = HTTPServer.Configuration(host: host, port: port, connectionTimeout: limits.httpIdleSeconds,
                                               perIPConnectionLimit: limits.httpConnectionsPerIP)
        // Authentication before the body: a request to /v1/ whose credentials are missing or
        // bad is refused without buffering its body.
        let clock = api.context.clock
        options.requestTimeout = limits.httpRequestSeconds
        options.headerCheck = { _, path, headers in
            // By the router's reading of the path (empty segments ignored): `//v1/events` is
            // `/v1/events` and must not slip past the check.
            guard path.split(separator: "/").first == "v1" else { return .proceed }
            return authenticator.precheck(headers: headers, now: clock.now)
        }
        self.http = HTTPServer(options, onComplete: { done in
            let route = routes.pattern(for: done.method, path: done.path) ?? "unmatched"
            // Label values from fixed sets only: a client cannot grow /metrics with made-up methods.
            let method = Self.knownMethods.contains(done.method) ? done.method : "other"
            metrics.increment("buzzkit_http_requests_total", ["route": route, "method": method, "status": "\(done.status)"],
                              help: "HTTP requests by route, method and status")
            metrics.observe("buzzkit_http_request_seconds", ["route": route], done.seconds, help: "HTTP request latency by route")
            if done.status >= 500 {
                log.warning("request failed", ["route": route, "status": "\(done.status)", "request_id": done.requestId])
            }
        }) { await routes.handle($0) }
    }

    /// The methods counted by name in `buzzkit_http_requests_total`; any other is `other`.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    public func start() throws {
        try http.start()
        tenantChanges.start()
    }

    /// The bound port (useful with port 0).
    public var port: Int { http.port }

    /// Serves until ``shutdown(deadline:)``, then answers what is in flight by its deadline.
    public func run() throws {
        try start()
        let deadline = shutdownRequest.wait()
        stop(grace: max(0, deadline.timeIntervalSinceNow))
    }

    public func shutdown(deadline: Date) { shutdownRequest.request(by: deadline) }

    /// Stops accepting and answers what is in flight within `grace`.
    public func stop(grace: TimeInterval) {
        http.stop(grace: grace)
        tenantChanges.stop()
    }
}
