import AMQPClient
import BuzzEngine
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import BuzzTesting
import Foundation
import PostgresClient
import PushDelivery
import APNsStandIn
import PushDeliveryTesting
import XCTest

/// The whole pipeline on real PostgreSQL and RabbitMQ (isolated schema and queue prefix):
/// workers for every queue, a scheduler, and an in-memory push provider that records sends.
final class PipelineHarness: @unchecked Sendable {
    let schema = TestServices.uniqueName("pipe")
    let topology: Topology
    let pool: PostgresPool
    let publisher: AMQPPublisher
    /// The broker port over `publisher`, consumed by the workers.
    let broker: AMQPBroker
    let push = InMemoryPushProvider()
    let provider: any PushProvider
    let metrics = Metrics()
    var context: PipelineContext
    let directory: PostgresDirectory
    let commands: RunCommands
    var workers: WorkerService?
    var extraWorkers: [WorkerService] = []
    var scheduler: Scheduler?
    let credentials: TenantCredentials
    /// Publishes every relayed message `copies` times (at-least-once drills).
    let relay: DuplicatingBroker
    /// How long workers hold a message through an outage.
    let outageHold: TimeInterval

    /// `deliveryLimit`, `outageHold` and `acquireTimeout` shorten the outage settings for drills.
    init(workers workerQueues: [Topology.Queue] = Topology.Queue.allCases, startScheduler: Bool = true, copies: Int = 1,
         provider: (any PushProvider)? = nil, deliveryLimit: Int = 10, outageHold: TimeInterval = 120, acquireTimeout: TimeInterval = 10) throws {
        self.provider = provider ?? push
        self.outageHold = outageHold
        topology = Topology(prefix: schema + ".", deliveryLimit: deliveryLimit)
        pool = try TestServices.migratedPool(schema: schema, maxConnections: 12, acquireTimeout: acquireTimeout)
        let topology = self.topology
        publisher = AMQPPublisher(.init(url: TestServices.amqpURL, onConnect: { try topology.declare(on: $0) }))
        let setup = try AMQPConnection(url: TestServices.amqpURL)
        try topology.declare(on: setup)
        setup.close()
        context = PipelineContext(store: PostgresStore(pool: pool), topology: topology, push: self.provider, metrics: metrics)
        broker = AMQPBroker(publisher: publisher, endpoints: TestServices.amqp, topology: topology)
        relay = DuplicatingBroker(broker, copies: copies)
        directory = PostgresDirectory(pool: pool)
        commands = RunCommands(context: context, broker: relay, outbox: PostgresOutbox(pool: pool))
        credentials = try directory.createTenant(name: "gym")
        if !workerQueues.isEmpty { startWorkers(workerQueues) }
        if startScheduler {
            let scheduler = Scheduler(outbox: PostgresOutbox(pool: pool), broker: relay, databaseURL: TestServices.url(schema: schema), metrics: metrics)
            self.scheduler = scheduler
            Thread { scheduler.run() }.start()
        }
    }

    func startWorkers(_ queues: [Topology.Queue]) {
        let service = WorkerService(configuration: .init(queues: queues, prefetch: 100, threadsPerQueue: 2, maxBatch: 50, outageHold: outageHold),
                                    context: context, broker: broker, outbox: PostgresOutbox(pool: pool), relay: relay)
        service.start()
        if workers == nil { workers = service } else { extraWorkers.append(service) }
    }

    func shutdown() {
        workers?.stop(grace: 2)
        extraWorkers.forEach { $0.stop(grace: 2) }
        scheduler?.stop()
        _ = scheduler?.waitUntilStopped(timeout: 5)
        broker.close(timeout: 10)
        pool.close()
        if let connection = try? AMQPConnection(url: TestServices.amqpURL) {
            try? topology.delete(on: connection)
            connection.close()
        }
        TestServices.dropSchema(schema)
    }

    var tenantId: String { credentials.tenantId }

    /// The leg-day workflow with its moment `{{trigger.at}}` (and the send's `expiresAfter`, when given).
    static let legDay = LegDay.value(.triggerAt)

    func putLegDay(expiresAfter: String? = nil) throws {
        let source = LegDay.value(.triggerAt, expiresAfter: expiresAfter)
        try directory.putWorkflow(tenantId: tenantId, definition: try WorkflowDefinition.parse(source), source: source)
    }

    /// A subscriber with `devices` iOS devices; returns their tokens.
    @discardableResult
    func subscriber(_ id: String, devices: Int = 1, timezone: String? = "Europe/Berlin") throws -> [String] {
        try directory.putSubscriber(SubscriberRecord(tenantId: tenantId, id: id, timezone: timezone))
        return try (0..<devices).map { n in
            let token = Digest64.token("\(schema)-\(id)-\(n)")
            try directory.putDevice(DeviceRecord(tenantId: tenantId, subscriberId: id, token: token, topic: "com.example.gym"))
            return token
        }
    }

    /// Publishes an event to the events exchange as a backend service would.
    func publish(_ event: BuzzEvent) throws {
        let body = try JSONEncoder().encode(event)
        let message = AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: tenantId, event: event.event),
                                  body: body, messageId: UUID().uuidString)
        try relay.publishAndWait([message])
    }

    func scheduleWorkout(_ subscriber: String, at: Date, workoutId: String = "w1") throws {
        try publish(BuzzEvent(event: "workout.scheduled", subscriberId: subscriber,
                              properties: ["at": .string(RFC3339.format(at)), "workoutId": .string(workoutId)], timestamp: Date()))
    }

    /// Gives each of `people` a device and schedules their workout `seconds` from now: the
    /// devices' tokens, in order, and the moment.
    func workouts(for people: [String], in seconds: TimeInterval) throws -> (tokens: [String], moment: Date) {
        let tokens = try people.flatMap { try subscriber($0) }
        let moment = Date().addingTimeInterval(seconds)
        for person in people { try scheduleWorkout(person, at: moment) }
        return (tokens, moment)
    }

    /// Runs of the tenant (newest first).
    func runs() throws -> [RunRecord] {
        let ids = try pool.withConnection { db in
            try db.query("SELECT id FROM runs WHERE tenant_id = \(tenantId) ORDER BY created_at DESC").map { try $0.decode("id", as: UUID.self) }
        }
        return try ids.compactMap { try commands.summary(tenantId: tenantId, runId: $0) }
    }

    func waitForRun(timeout: TimeInterval = 15, _ predicate: (RunRecord) -> Bool) throws -> RunRecord? {
        var found: RunRecord?
        _ = try TestServices.eventually(timeout: timeout) {
            found = try runs().first(where: predicate)
            return found != nil
        }
        return found
    }

    /// Pushes recorded for `token`.
    func pushes(to token: String) -> [PushNotification] { push.sent.filter { $0.deviceToken == token } }

    /// Acknowledges a plan as the SDK does (`$local.scheduled` event).
    func acknowledge(_ subscriber: String, localId: String, messageId: String) throws {
        try publish(BuzzEvent(event: BuzzEvent.localScheduled, subscriberId: subscriber,
                              properties: ["localId": .string(localId), "messageId": .string(messageId)], timestamp: Date()))
    }
}

/// Device tokens: 64 lowercase hex digits, like Apple's.
enum Digest64 {
    static func token(_ seed: String) -> String {
        var state: UInt64 = 1469598103934665603
        var out = ""
        for _ in 0..<4 {
            for byte in seed.utf8 { state = (state ^ UInt64(byte)) &* 1099511628211 }
            out += String(format: "%016llx", state)
        }
        return out
    }
}
