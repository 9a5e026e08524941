import AMQPClient
import BuzzAPI
import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import PushDeliveryTesting

/// Urgent before bulk: one tenant's campaign of `BENCH_CAMPAIGN` events (default 1,000,000,
/// due 20 minutes ahead) is published to the bulk lane, then the workers start; while the
/// campaign is in flight, every half
/// second an ordinary event due in 15 s arrives from another tenant and one from the
/// campaign's own tenant. The figures are how long each ordinary event took to become a plan
/// pushed to its phone (p50, p99, worst), and the campaign's own throughput meanwhile.
/// Every stage runs in this process over the real PostgreSQL and RabbitMQ, as in
/// ``PipelineBench``; pushes go to the in-memory provider.
enum FairnessBench {
    static func run(settings: BenchSettings, report: inout BenchReport) throws {
        let environment = ProcessInfo.processInfo.environment
        let campaign = Int(environment["BENCH_CAMPAIGN"] ?? "") ?? 1_000_000
        let probeSeconds = Double(environment["BENCH_FAIRNESS_SECONDS"] ?? "") ?? 30
        let audience = 100_000
        let (runtime, push, topology) = try settings.pipelineRuntime("fairness (a campaign of \(campaign) events in flight)",
                                                                     schema: "bench_fairness", prefix: "bench.fair.")
        defer { runtime.close() }
        // A connection for each look at the broker: one held idle through the campaign's
        // publishing would miss its heartbeats.
        func broker<T>(_ body: (AMQPConnection) throws -> T) throws -> T {
            let connection = try runtime.amqp.connect().connection
            defer { connection.close() }
            return try body(connection)
        }
        let depth = { (queues: [Topology.Queue]) in try broker { c in try queues.reduce(0) { $0 + (try c.queueDepth(topology.name($1)).messages) } } }

        let directory = PostgresDirectory(pool: runtime.pool)
        let campaigner = try directory.createTenant(name: "campaigner"), other = try directory.createTenant(name: "other")
        let workflow = try JSONDecoder().decode(JSONValue.self, from: Data("""
            {"key":"reminder","trigger":{"event":"reminder.set"},"cancelOn":[{"event":"reminder.done"}],
             "steps":[{"name":"wait","waitUntil":{"at":"{{trigger.at}}"}},{"name":"nudge","send":{"deliver":"local","title":"Now","body":"It is time."}}]}
            """.utf8))
        for tenant in [campaigner, other] {
            try directory.putWorkflow(tenantId: tenant.tenantId, definition: WorkflowDefinition.parse(workflow), source: workflow)
        }
        // The campaign's audience (s1…s100000) and the probes' subscribers (p1…p200 in each tenant).
        try runtime.pool.withConnection { db in
            for (tenantId, prefix, count) in [(campaigner.tenantId, "s", audience), (campaigner.tenantId, "p", 300), (other.tenantId, "p", 300)] {
                try db.execute("""
                    INSERT INTO subscribers (tenant_id, id, timezone) SELECT \(tenantId), \(prefix) || n, 'Europe/Berlin' FROM generate_series(1, \(count)) n
                    """)
                try db.execute("""
                    INSERT INTO devices (id, tenant_id, subscriber_id, token, topic, environment, platform)
                    SELECT gen_random_uuid(), \(tenantId), \(prefix) || n, md5(\(tenantId) || \(prefix) || n) || md5(\(prefix) || n || \(tenantId)),
                           'com.example.gym', 'production', 'ios'
                    FROM generate_series(1, \(count)) n
                    """)
            }
        }
        let probeTokens = try runtime.pool.withConnection { db in
            try db.query("SELECT tenant_id, subscriber_id, token FROM devices WHERE subscriber_id LIKE 'p%'").map {
                (try $0.decode("tenant_id", as: String.self) + "/" + $0.decode("subscriber_id", as: String.self), try $0.decode("token", as: String.self))
            }
        }
        let tokenOf = Dictionary(uniqueKeysWithValues: probeTokens)

        // The campaign, published to the bulk lane as fast as RabbitMQ confirms it.
        let far = RFC3339.format(Date().addingTimeInterval(1200))
        let published = Date()
        var batch: [AMQPMessage] = []
        for n in 1...campaign {
            let event = BuzzEvent(event: "reminder.set", subscriberId: "s\((n - 1) % audience + 1)", properties: ["at": .string(far)], timestamp: Date())
            batch.append(AMQPMessage(exchange: topology.bulkEventsExchange, routingKey: Topology.routingKey(tenantId: campaigner.tenantId, event: event.event),
                                     body: event.jsonData, messageId: RandomIdentifier.text()))
            if batch.count == 1000 || n == campaign {
                try runtime.publisher.publishAndWait(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        let publishSeconds = Date().timeIntervalSince(published)
        // The workers start once the whole campaign is queued: every probe finds it in flight.
        let workers = runtime.workers(Topology.Queue.allCases)
        workers.start()
        let scheduler = runtime.scheduler()
        Thread { scheduler.run() }.start()
        defer {
            _ = try? broker { c in try [Topology.Queue.triggerBulk, .planDispatchBulk].map { try c.purgeQueue(topology.name($0)) } }
            workers.stop(grace: 5)
            scheduler.stop()
            _ = scheduler.waitUntilStopped(timeout: 5)
        }

        FileHandle.standardError.write(Data(String(format: "fairness: campaign published in %.1f s; probing for %.0f s...\n", publishSeconds, probeSeconds).utf8))
        let campaignPlans = { (from: Int) in push.sent(from: from).filter { $0.pushType == .background }.count }

        // The probes: every half second, one ordinary event of each tenant, due in 15 s.
        let sentAtStart = push.sent.count
        let inFlightAtStart = try depth([.triggerBulk])
        let probesStarted = Date()
        let latencies = try probe([other.tenantId, campaigner.tenantId], seconds: probeSeconds, subscribers: 1...100, push: push, tokens: tokenOf) { tenantId, event in
            try runtime.publisher.publishAndWait([AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: tenantId, event: event.event),
                                                              body: event.jsonData, messageId: RandomIdentifier.text())])
        }
        let probeWindow = Date().timeIntervalSince(probesStarted)
        let campaignSent = campaignPlans(sentAtStart) - latencies.values.map(\.count).reduce(0, +)
        let inFlightAtEnd = try depth([.triggerBulk])

        report.add("fairness: campaign of \(campaign) published to the bulk lane", Double(campaign) / publishSeconds, unit: "events/s confirmed")
        for (name, tenantId) in [("another tenant's event", other.tenantId), ("the campaign tenant's own unmarked event", campaigner.tenantId)] {
            add(report: &report, "fairness: \(name), due in 15 s: plan on the phone", latencies[tenantId] ?? [])
        }
        report.add("fairness: campaign plans pushed meanwhile", Double(max(0, campaignSent)) / probeWindow,
                   unit: String(format: "plans/s (events in flight: %d at the first probe, %d at the last)", inFlightAtStart, inFlightAtEnd))

        // Phase 2: the same tenant floods the API with unmarked events instead (the issue's
        // experiment): past its interactive allowance they are accepted into the bulk lane.
        _ = try broker { c in try [Topology.Queue.triggerBulk, .planDispatchBulk].map { try c.purgeQueue(topology.name($0)) } }
        let flood = Int(environment["BENCH_FLOOD_EVENTS"] ?? "") ?? 300_000
        let server = APIServer(runtime: runtime, host: "127.0.0.1", port: 0)
        try server.start()
        defer { server.stop(grace: 2) }
        let client = BenchHTTPClient(base: "http://127.0.0.1:\(server.port)")
        let posted = Locked(0)
        let flooder = Thread {
            for chunk in stride(from: 0, to: flood, by: 1000) {
                let events = (chunk..<min(flood, chunk + 1000)).map { n in
                    ["event": "reminder.set", "subscriberId": "s\(n % audience + 1)", "properties": ["at": far]] as [String: Any]
                }
                guard client.post("/v1/events", ["events": events], key: campaigner.secretKey) == 202 else { continue }
                posted.withLock { $0 += events.count }
            }
        }
        flooder.start()
        while posted.withLock({ $0 }) < flood / 3 { Thread.sleep(forTimeInterval: 0.05) }
        FileHandle.standardError.write(Data("fairness: \(flood) unmarked events flooding the API; probing...\n".utf8))
        let keys = [other.tenantId: other.secretKey]
        let during = try probe([other.tenantId], seconds: min(probeSeconds, 20), subscribers: 101...200, push: push, tokens: tokenOf) { tenantId, event in
            guard client.post("/v1/events", ["event": event.event, "subscriberId": event.subscriberId, "properties": ["at": event.properties["at"]?.stringValue ?? ""]],
                              key: keys[tenantId] ?? "") == 202 else { throw BenchFailure("a probe event was refused") }
        }
        while posted.withLock({ $0 }) < flood && flooder.isExecuting { Thread.sleep(forTimeInterval: 0.05) }
        add(report: &report, "fairness: another tenant's event during an unmarked flood of \(flood) through the API", during[other.tenantId] ?? [])
        report.add("fairness:   of the flood, accepted into the bulk lane past the tenant's allowance", runtime.metrics.counter("buzzkit_events_demoted_total"),
                   unit: "events of \(posted.withLock { $0 }) accepted")

        // Phase 3: one phone's flood beside ordinary traffic (PhoneFlood).
        _ = try broker { c in try [Topology.Queue.triggerBulk, .planDispatchBulk].map { try c.purgeQueue(topology.name($0)) } }
        try PhoneFlood(client: client, phoneTenant: campaigner, other: other, push: push, tokens: tokenOf).run(report: &report)
    }

    /// Sends an ordinary event due in 15 s for each tenant every half second, for `seconds`
    /// (subscriber `p<n>` of each tenant, n from `subscribers`), and returns how long each took
    /// to become a plan pushed to its phone, by tenant (infinity: it never did within 20 s).
    static func probe(_ tenants: [String], seconds: Double, subscribers: ClosedRange<Int>, push: InMemoryPushProvider, tokens: [String: String],
                      send: (String, BuzzEvent) throws -> Void) throws -> [String: [Double]] {
        let watch = ProbeWatch(push: push, tokens: Set(tokens.values), from: push.sent.count)
        defer { watch.stop() }
        let started = Date()
        var probes: [(tenant: String, token: String, at: Date)] = []
        var n = subscribers.lowerBound - 1
        while Date().timeIntervalSince(started) < seconds && n < subscribers.upperBound {
            n += 1
            for tenantId in tenants {
                let subscriber = "p\(n)"
                let event = BuzzEvent(event: "reminder.set", subscriberId: subscriber,
                                      properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(15)))], timestamp: Date())
                let sentAt = Date()
                try send(tenantId, event)
                probes.append((tenantId, tokens[tenantId + "/" + subscriber] ?? "", sentAt))
            }
            Thread.sleep(forTimeInterval: max(0, started.addingTimeInterval(Double(n - subscribers.lowerBound + 1) * 0.5).timeIntervalSinceNow))
        }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && probes.contains(where: { watch.arrival($0.token) == nil }) { Thread.sleep(forTimeInterval: 0.01) }
        var latencies: [String: [Double]] = [:]
        for probe in probes {
            latencies[probe.tenant, default: []].append(watch.arrival(probe.token).map { $0.timeIntervalSince(probe.at) } ?? .infinity)
        }
        return latencies
    }

    static func add(report: inout BenchReport, _ name: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return }
        report.add(name + " p50 (p99, worst)", sorted.percentile(0.5) * 1000,
                   unit: String(format: "ms (p99 %.0f ms, worst %.0f ms, %d events)", sorted.percentile(0.99) * 1000, (sorted.last ?? 0) * 1000, sorted.count))
    }
}

/// Watches the provider's pushes for the probes' first arrivals, on a thread of its own that
/// looks at what is new every 2 ms.
final class ProbeWatch: @unchecked Sendable {
    let push: InMemoryPushProvider
    let tokens: Set<String>
    private let lock = NSLock()
    private var arrivals: [String: Date] = [:]
    private var stopped = false

    init(push: InMemoryPushProvider, tokens: Set<String>, from index: Int) {
        self.push = push
        self.tokens = tokens
        Thread { [self] in
            var seen = index
            while !lock.withLock({ stopped }) {
                let fresh = push.sent(from: seen)
                seen += fresh.count
                let now = Date()
                lock.withLock {
                    for notification in fresh where tokens.contains(notification.deviceToken) && arrivals[notification.deviceToken] == nil {
                        arrivals[notification.deviceToken] = now
                    }
                }
                Thread.sleep(forTimeInterval: 0.002)
            }
        }.start()
    }

    func arrival(_ token: String) -> Date? { lock.withLock { arrivals[token] } }

    func stop() { lock.withLock { stopped = true } }
}
