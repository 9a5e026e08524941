import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import HTTPServer

/// The console (`/console`, files of ``ConsoleAssets``) and the management routes only it
/// needs: a run's timeline, the pipeline's health, a tenant's dead letters. Each `/v1` route
/// takes the tenant's secret key like every management route, and reads that tenant's data
/// only; queue depths are the broker's, the same for every tenant.
enum ConsoleRoutes {
    static func register(_ router: inout Router, _ api: APIContext, assets: ConsoleAssets = .bundled) {
        router.add("GET", "/console") { _ in assets.response("index.html") }
        router.add("GET", "/console/{file}") { request in assets.response(try request.parameter("file")) }

        router.add("GET", "/v1/runs/{id}/timeline") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let id = try WorkflowRoutes.runId(request), tenantId = principal.tenant.id
            guard let found = try await api.blocking({ try api.commands.timeline(tenantId: tenantId, runId: id) }) else {
                throw HTTPError.notFound("run \(id.uuidString.lowercased())")
            }
            let context = found.run.state.context
            return .json(TimelineBody(run: found.summary, trigger: .init(found.run.state.trigger),
                                      timezone: context.subscriberTimeZone ?? context.tenantDefaultTimeZone ?? "UTC",
                                      devices: found.holdings.map(TimelineBody.Holding.init)))
        }

        router.add("GET", "/v1/health") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let tenantId = principal.tenant.id, now = api.clock.now
            let minutes = try await api.blocking { try api.commands.minuteActivity(tenantId: tenantId, minutes: 60) }
            var queues: [HealthBody.Queue] = []
            if let source = api.depths, let depths = try? await BlockingPool.shared.run({ try source.read(now: now) }) {
                let byName = Dictionary(depths.map { ($0.queue, $0) }, uniquingKeysWith: { a, _ in a })
                for queue in Topology.Queue.allCases {
                    let work = byName[api.topology.name(queue)], dead = byName[api.topology.deadLetterName(queue)]
                    queues.append(.init(queue: queue.rawValue, messages: work?.messages ?? 0, consumers: work?.consumers ?? 0,
                                        deadLetters: dead?.messages ?? 0))
                }
            }
            return .json(HealthBody(asOf: now, brokerAnswered: !queues.isEmpty, queues: queues, minutes: minutes.map(HealthBody.Minute.init)))
        }

        router.add("GET", "/v1/dead-letters/{queue}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let (source, queue) = try deadLetters(api, request), tenantId = principal.tenant.id
            let letters = try await api.blocking(context: "dead letters") { try source.list(queue, tenantId: tenantId, limit: 100) }
            return .json(["letters": letters.map(LetterBody.init)])
        }

        router.add("POST", "/v1/dead-letters/{queue}/replay") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let (source, queue) = try deadLetters(api, request), tenantId = principal.tenant.id
            let replayed = try await api.blocking(context: "dead letters") { try source.replay(queue, tenantId: tenantId) }
            api.log.info("dead letters replayed", ["tenant": tenantId, "queue": queue.rawValue, "replayed": "\(replayed)"])
            return .json(["replayed": replayed])
        }
    }

    static func deadLetters(_ api: APIContext, _ request: HTTPRequest) throws -> (any DeadLetterSource, Topology.Queue) {
        let name = try request.parameter("queue")
        guard let queue = Topology.Queue(rawValue: name) else {
            throw HTTPError.notFound("queue \"\(name)\" (one of \(Topology.Queue.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard let source = api.deadLetters else {
            throw HTTPError(status: 503, code: "unavailable", message: "this API has no broker connection for dead letters")
        }
        return (source, queue)
    }

    /// `GET /v1/runs/{id}/timeline`.
    struct TimelineBody: Encodable {
        struct Trigger: Encodable {
            var event: String
            var properties: [String: JSONValue]
            var timestamp: String
            init(_ event: BuzzEvent) { (self.event, properties, timestamp) = (event.event, event.properties, RFC3339.format(event.timestamp)) }
        }
        /// One device's standing on one plan of the run.
        struct Holding: Encodable {
            var localId: String
            var tokenSuffix: String
            var acknowledgedAt: String
            var scheduledAt: String?
            var releasedAt: String?
            var counts: Bool
            init(_ holding: PlanHolding) {
                localId = holding.localId
                tokenSuffix = String(holding.device.suffix(8))
                acknowledgedAt = RFC3339.format(holding.acknowledgedAt)
                scheduledAt = holding.scheduledAt.map(RFC3339.format)
                releasedAt = holding.releasedAt.map(RFC3339.format)
                counts = holding.counts
            }
        }
        var run: RunSummary
        var trigger: Trigger
        var timezone: String
        var devices: [Holding]
    }

    /// `GET /v1/health`.
    struct HealthBody: Encodable {
        struct Queue: Encodable {
            var queue: String
            var messages: Int
            var consumers: Int
            var deadLetters: Int
        }
        struct Minute: Encodable {
            var minute: String
            var sent: [String: Int]
            var failed: [String: Int]
            var acknowledged: Int
            var fallback: Int
            init(_ activity: MinuteActivity) {
                // Kinds as the run summary names them (`alert` for an ordinary push).
                func named(_ counts: [String: Int]) -> [String: Int] {
                    Dictionary(counts.map { ($0.key == "push" ? "alert" : $0.key, $0.value) }, uniquingKeysWith: +)
                }
                (minute, sent, failed) = (RFC3339.format(activity.minute), named(activity.sent), named(activity.failed))
                (acknowledged, fallback) = (activity.acknowledged, activity.fallback)
            }
        }
        var asOf: Date
        var brokerAnswered: Bool
        var queues: [Queue]
        var minutes: [Minute]
    }

    /// A dead letter as the console lists it; the body as text, cut at 4 KiB, with device
    /// tokens shown by their last 8 digits as everywhere else (a dead-lettered cancel carries
    /// its recipients' tokens).
    struct LetterBody: Encodable {
        var messageId: String?
        var routingKey: String
        var reason: String
        var body: String
        init(_ letter: DeadLetters.Letter) {
            (messageId, routingKey, reason) = (letter.messageId, letter.routingKey, letter.reason)
            body = Self.maskingTokens(String(decoding: letter.body.prefix(4096), as: UTF8.self))
        }

        /// Every run of 32 or more hex digits (an APNs token is 64) as `…` and its last 8.
        static func maskingTokens(_ text: String) -> String {
            var out = "", run = ""
            func flush() {
                out += run.count >= 32 ? "…" + run.suffix(8) : run
                run = ""
            }
            for character in text {
                if character.isHexDigit { run.append(character) } else { flush(); out.append(character) }
            }
            flush()
            return out
        }
    }
}
