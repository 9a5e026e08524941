import AMQPClient
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery

/// Urgent before bulk: one tenant's campaign of `BENCH_CAMPAIGN` events (default 1,000,000,
/// due 20 minutes ahead) is published to the bulk lane; while it is in flight, every half
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
        let schema = "bench_fairness"
        FileHandle.standardError.write(Data("fairness (a campaign of \(campaign) events in flight)...\n".utf8))
        try settings.freshSchema(schema)

        var configuration = Configuration()
        configuration.databaseURL = settings.databaseURL
        configuration.amqpURL = settings.amqpURL
        configuration.databaseSchema = schema
        configuration.databasePoolSize = 24
        configuration.workerThreads = 3
        configuration.batchSize = 200
        configuration.prefetch = 1000
        let push = InMemoryPushProvider()
        let topology = Topology(prefix: "bench.fair.")
        let runtime = try Runtime(configuration: configuration, push: push, component: "bench", topology: topology)
        defer { runtime.close() }
        let setup = try AMQPConnection(url: runtime.amqpURL)
        try topology.declare(on: setup)
        for queue in Topology.Queue.allCases { try setup.purgeQueue(topology.name(queue)) }

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
            for (tenantId, prefix, count) in [(campaigner.tenantId, "s", audience), (campaigner.tenantId, "p", 200), (other.tenantId, "p", 200)] {
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

        let workers = runtime.workers(Topology.Queue.allCases)
        workers.start()
        let scheduler = runtime.scheduler()
        Thread { scheduler.run() }.start()
        defer {
            for queue in [Topology.Queue.triggerBulk, .planDispatchBulk] { _ = try? setup.purgeQueue(topology.name(queue)) }
            workers.stop(grace: 5)
            scheduler.stop()
            _ = scheduler.waitUntilStopped(timeout: 5)
            setup.close()
        }

        // The campaign, published to the bulk lane as fast as RabbitMQ confirms it.
        let far = RFC3339.format(Date().addingTimeInterval(1200))
        let published = Date()
        var batch: [AMQPMessage] = []
        for n in 1...campaign {
            let event = BuzzEvent(event: "reminder.set", subscriberId: "s\((n - 1) % audience + 1)", properties: ["at": .string(far)], timestamp: Date())
            batch.append(AMQPMessage(exchange: topology.bulkEventsExchange, routingKey: Topology.routingKey(tenantId: campaigner.tenantId, event: event.event),
                                     body: event.jsonData, messageId: UUID().uuidString))
            if batch.count == 1000 || n == campaign {
                try runtime.publisher.publishAndWait(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        let publishSeconds = Date().timeIntervalSince(published)
        let campaignPlans = { (from: Int) in push.sent(from: from).filter { $0.pushType == .background }.count }

        // The probes: every half second, one ordinary event of each tenant, due in 15 s.
        let sentAtStart = push.sent.count
        let watch = ProbeWatch(push: push, tokens: Set(tokenOf.values), from: sentAtStart)
        defer { watch.stop() }
        let probesStarted = Date()
        let inFlightAtStart = try setup.queueDepth(topology.name(.triggerBulk)).messages
        var probes: [(tenant: String, token: String, at: Date)] = []
        var n = 0
        while Date().timeIntervalSince(probesStarted) < probeSeconds && n < 200 {
            n += 1
            for tenant in [other, campaigner] {
                let subscriber = "p\(n)"
                let event = BuzzEvent(event: "reminder.set", subscriberId: subscriber,
                                      properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(15)))], timestamp: Date())
                let sentAt = Date()
                try runtime.publisher.publishAndWait([AMQPMessage(exchange: topology.eventsExchange,
                                                                  routingKey: Topology.routingKey(tenantId: tenant.tenantId, event: event.event),
                                                                  body: event.jsonData, messageId: UUID().uuidString)])
                probes.append((tenant.tenantId, tokenOf[tenant.tenantId + "/" + subscriber] ?? "", sentAt))
            }
            Thread.sleep(forTimeInterval: max(0, probesStarted.addingTimeInterval(Double(n) * 0.5).timeIntervalSinceNow))
        }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && probes.contains(where: { watch.arrival($0.token) == nil }) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let probeWindow = Date().timeIntervalSince(probesStarted)
        let campaignSent = campaignPlans(sentAtStart) - probes.count
        let inFlightAtEnd = try setup.queueDepth(topology.name(.triggerBulk)).messages + (try setup.queueDepth(topology.name(.planDispatchBulk)).messages)

        report.add("fairness: campaign of \(campaign) published to the bulk lane", Double(campaign) / publishSeconds, unit: "events/s confirmed")
        for (name, tenantId) in [("another tenant's event", other.tenantId), ("the campaign tenant's own unmarked event", campaigner.tenantId)] {
            let latencies = probes.filter { $0.tenant == tenantId }.map { probe in watch.arrival(probe.token).map { $0.timeIntervalSince(probe.at) } ?? .infinity }.sorted()
            func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count - 1) * p))] }
            report.add("fairness: \(name), due in 15 s: plan on the phone p50 (p99, worst)", percentile(0.5) * 1000,
                       unit: String(format: "ms (p99 %.0f ms, worst %.0f ms, %d events)", percentile(0.99) * 1000, (latencies.last ?? 0) * 1000, latencies.count))
        }
        report.add("fairness: campaign plans pushed meanwhile", Double(max(0, campaignSent)) / probeWindow,
                   unit: String(format: "plans/s (events in flight: %d at the first probe, %d at the last)", inFlightAtStart, inFlightAtEnd))
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
