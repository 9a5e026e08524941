import AMQPClient
import BuzzServer
import Foundation
import PostgresClient
import XCTest

final class SchedulerIntegrationTests: XCTestCase {
    var schema = ""
    var topology = Topology()
    var pool: PostgresPool!
    var publisher: AMQPPublisher!
    var broker: AMQPBroker { AMQPBroker(publisher: publisher, endpoints: TestServices.amqp, topology: topology) }

    override func setUpWithError() throws {
        schema = TestServices.uniqueName("sched")
        pool = try TestServices.migratedPool(schema: schema)
        topology = Topology(prefix: schema + ".")
        let connection = try AMQPConnection(url: TestServices.amqpURL)
        try topology.declare(on: connection)
        connection.close()
        publisher = AMQPPublisher(.init(url: TestServices.amqpURL))
    }

    override func tearDown() {
        publisher?.close()
        pool?.close()
        if let connection = try? AMQPConnection(url: TestServices.amqpURL) {
            try? topology.delete(on: connection)
            connection.close()
        }
        TestServices.dropSchema(schema)
    }

    /// Collects messages from a queue with their arrival times.
    final class Inbox: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(id: String, at: Date)] = []
        func add(_ id: String) { lock.lock(); items.append((id, Date())); lock.unlock() }
        var all: [(id: String, at: Date)] { lock.lock(); defer { lock.unlock() }; return items }
    }

    func consume(_ queue: Topology.Queue, into inbox: Inbox) -> AMQPConsumer {
        let consumer = AMQPConsumer(.init(url: TestServices.amqpURL, queue: topology.name(queue), prefetch: 500)) { delivery in
            inbox.add(delivery.messageId ?? "?")
            delivery.ack()
        }
        consumer.start()
        return consumer
    }

    func testTimersArriveOnTimeAndNeverEarly() throws {
        let now = Date()
        let dues = [0.3, 0.8, 1.5, 2.5].map { now.addingTimeInterval($0) }
        try pool.withTransaction { db in
            try PostgresOutbox.insert(dues.enumerated().map { i, due in
                OutboxMessage(routingKey: self.topology.name(.fallbackCheck), messageId: "timer-\(i)", body: Data("{}".utf8), availableAt: due)
            }, now: now, on: db)
        }
        let inbox = Inbox()
        let consumer = consume(.fallbackCheck, into: inbox)
        defer { consumer.stop(grace: 1) }
        let metrics = Metrics()
        let scheduler = Scheduler(pool: pool, broker: broker, databaseURL: TestServices.url(schema: schema), metrics: metrics)
        Thread { scheduler.run() }.start()
        defer { scheduler.stop(); _ = scheduler.waitUntilStopped(timeout: 5) }

        XCTAssertTrue(TestServices.eventually(timeout: 10) { inbox.all.count == 4 })
        for (i, due) in dues.enumerated() {
            guard let arrival = inbox.all.first(where: { $0.id == "timer-\(i)" }) else { return XCTFail("timer-\(i) never arrived") }
            XCTAssertGreaterThanOrEqual(arrival.at.timeIntervalSince(due), 0, "timer-\(i) fired early")
            XCTAssertLessThan(arrival.at.timeIntervalSince(due), 0.5, "timer-\(i) fired late")
        }
        XCTAssertEqual(try pool.withConnection { try $0.query("SELECT count(*) AS n FROM outbox")[0].decode("n", as: Int.self) }, 0)
        XCTAssertTrue(metrics.render().contains("buzzkit_timer_lateness_seconds_count 4"))
    }

    /// The scheduler vacuums the outbox every `vacuumEvery` rows it claims: the deleted rows'
    /// space (and their entries in the due index every claim walks) is reclaimed without
    /// waiting for autovacuum, while every timer still goes out once.
    func testTheSchedulerVacuumsTheOutboxAsItClaims() throws {
        let now = Date()
        try pool.withTransaction { db in
            try PostgresOutbox.insert((0..<3000).map { i in
                OutboxMessage(routingKey: self.topology.name(.fallbackCheck), messageId: "timer-\(i)", body: Data("{}".utf8),
                              availableAt: now.addingTimeInterval(-1))
            }, now: now, on: db)
        }
        func manualVacuums() throws -> Int {
            try pool.withConnection { db in
                try db.query("SELECT vacuum_count FROM pg_stat_user_tables WHERE schemaname = \(self.schema) AND relname = 'outbox'")[0]
                    .decode("vacuum_count", as: Int.self)
            }
        }
        XCTAssertEqual(try manualVacuums(), 0)
        let inbox = Inbox()
        let consumer = consume(.fallbackCheck, into: inbox)
        defer { consumer.stop(grace: 1) }
        let metrics = Metrics()
        let scheduler = Scheduler(pool: pool, broker: broker, databaseURL: TestServices.url(schema: schema),
                                  configuration: .init(batchSize: 500, vacuumEvery: 1000), metrics: metrics)
        Thread { scheduler.run() }.start()
        defer { scheduler.stop(); _ = scheduler.waitUntilStopped(timeout: 5) }
        XCTAssertTrue(TestServices.eventually(timeout: 20) { inbox.all.count >= 3000 })
        // One vacuum per 1,000 rows claimed, less any threshold crossed while one still ran.
        XCTAssertTrue(TestServices.eventually(timeout: 10) { metrics.render().contains("buzzkit_outbox_vacuums_total ") })
        XCTAssertTrue(TestServices.eventually(timeout: 10) { (try? manualVacuums()) ?? 0 >= 1 }, "the vacuums ran on this schema's outbox")
        XCTAssertLessThanOrEqual(try manualVacuums(), 3)
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(Set(inbox.all.map(\.id)).count, 3000)
        XCTAssertEqual(inbox.all.count, 3000, "every timer went out once")
    }

    func testImmediateRowsAreRelayedByTheWorkerAndFallBackToTheScheduler() throws {
        let now = Date()
        let rows = try pool.withTransaction { db in
            try PostgresOutbox.insert([OutboxMessage(routingKey: self.topology.name(.trigger), messageId: "fast", body: Data("{}".utf8))], now: now, on: db)
        }
        Outbox.relay(rows, broker: broker, outbox: PostgresOutbox(pool: pool))
        XCTAssertEqual(try pool.withConnection { try $0.query("SELECT count(*) AS n FROM outbox")[0].decode("n", as: Int.self) }, 0,
                       "the fast path deletes what it published")

        // A worker that died after commit: its row waits for the lease, then the scheduler relays it.
        try pool.withTransaction { db in
            try PostgresOutbox.insert([OutboxMessage(routingKey: self.topology.name(.trigger), messageId: "orphan", body: Data("{}".utf8))],
                              now: now.addingTimeInterval(-Outbox.relayLease), on: db)
        }
        let inbox = Inbox()
        let consumer = consume(.trigger, into: inbox)
        defer { consumer.stop(grace: 1) }
        let scheduler = Scheduler(pool: pool, broker: broker, databaseURL: TestServices.url(schema: schema))
        XCTAssertEqual(try scheduler.relayDue(), 1)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { Set(inbox.all.map(\.id)) == ["fast", "orphan"] })
    }

    func testConcurrentSchedulersPublishEachRowOnce() throws {
        let now = Date()
        try pool.withTransaction { db in
            try PostgresOutbox.insert((0..<3000).map {
                OutboxMessage(routingKey: self.topology.name(.planDispatch), messageId: "m\($0)", body: Data("{}".utf8), availableAt: now)
            }, now: now, on: db)
        }
        let schedulers = (0..<2).map { _ in
            Scheduler(pool: pool, broker: broker, databaseURL: TestServices.url(schema: schema), configuration: .init(batchSize: 100))
        }
        let counts = LockedList()
        let group = TestServices.threads(schedulers.count) { index in
            var total = 0
            while let n = try? schedulers[index].relayDue(), n > 0 { total += n }
            counts.append([total])
        }
        group.wait()
        XCTAssertEqual(counts.items.reduce(0, +), 3000)
        XCTAssertTrue(counts.items.allSatisfy { $0 > 0 }, "both schedulers took part: \(counts.items)")
        let inbox = Inbox()
        let consumer = consume(.planDispatch, into: inbox)
        defer { consumer.stop(grace: 1) }
        XCTAssertTrue(TestServices.eventually(timeout: 10) { inbox.all.count >= 3000 })
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(inbox.all.count, 3000)
        XCTAssertEqual(Set(inbox.all.map(\.id)).count, 3000, "no row was published twice")
    }

    func testEventsRouteAcknowledgmentsToAckIngestAndTheRestToTrigger() throws {
        let triggerInbox = Inbox(), ackInbox = Inbox()
        let triggerConsumer = consume(.trigger, into: triggerInbox)
        let ackConsumer = consume(.ackIngest, into: ackInbox)
        defer { triggerConsumer.stop(grace: 1); ackConsumer.stop(grace: 1) }
        try publisher.publishAndWait([
            AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: "t_1", event: "workout.completed"), body: Data(), messageId: "e1"),
            AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: "t_1", event: "$local.scheduled"), body: Data(), messageId: "e2"),
            AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: "t_1", event: "$push.opened"), body: Data(), messageId: "e3"),
        ])
        XCTAssertTrue(TestServices.eventually(timeout: 5) { triggerInbox.all.count == 2 && ackInbox.all.count == 1 })
        XCTAssertEqual(Set(triggerInbox.all.map(\.id)), ["e1", "e3"])
        XCTAssertEqual(ackInbox.all.map(\.id), ["e2"])
    }
}
