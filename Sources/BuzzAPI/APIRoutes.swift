import BuzzServer
import BuzzKitWire
import Foundation
import HTTPServer

/// The API's routes over its ports, without HTTP: what ``APIServer`` serves on PostgreSQL and
/// RabbitMQ, and what an in-process composition (the in-memory pipeline test) calls directly
/// with ``InMemoryDirectory``, an in-memory store and broker.
public struct APIRoutes: Sendable {
    public let router: Router
    let context: APIContext

    /// `rateLimits`, `maxSubscriberTokenDays` and `maxDevicesPerSubscriber` are the
    /// `Configuration` values of the same names; `depths` feeds `/metrics` and `/v1/health`,
    /// `deadLetters` the console's dead letters (nil: none).
    public init(directory: any Directory, commands: RunCommands, broker: any Broker, topology: Topology, metrics: Metrics, clock: any Clock,
                log: Log, rateLimits: RateLimits = RateLimits(), maxSubscriberTokenDays: Int = 30, maxDevicesPerSubscriber: Int = 10,
                depths: (any QueueDepthSource)? = nil, deadLetters: (any DeadLetterSource)? = nil) {
        let authenticator = Authenticator(directory: directory, limits: rateLimits, maxTokenLifetime: Double(maxSubscriberTokenDays) * 86_400)
        context = APIContext(directory: directory, commands: commands, broker: broker, topology: topology, metrics: metrics, clock: clock,
                             authenticator: authenticator, depths: depths, deadLetters: deadLetters, log: log, maxDevicesPerSubscriber: maxDevicesPerSubscriber)
        var router = Router()
        EventRoutes.register(&router, context)
        DirectoryRoutes.register(&router, context)
        DeviceRoutes.register(&router, context)
        WorkflowRoutes.register(&router, context)
        HealthRoutes.register(&router, context)
        ConsoleRoutes.register(&router, context)
        self.router = router
    }

    /// Answers one request as the server's handler does.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse { await router.handle(request) }
}
