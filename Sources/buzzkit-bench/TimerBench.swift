import AMQPClient
import BuzzServer
import Foundation
import PostgresClient

/// Timer lateness with a million timers pending: 1,000,000 outbox rows due over the next day,
/// plus 500 timers a second due during the measurement, published by two schedulers and
/// consumed from a bench queue; lateness = arrival − due time.
enum TimerBench {
    static func run(settings: BenchSettings, report: inout BenchReport) throws {
        let pending = Int(ProcessInfo.processInfo.environment["BENCH_PENDING_TIMERS"] ?? "") ?? 1_000_000
        let seconds = max(10, Int(settings.seconds * 4))
        let rate = 500
        FileHandle.standardError.write(Data("timers (\(pending) pending, \(rate)/s due for \(seconds) s)...\n".utf8))
        let schema = "bench_timers"
        try settings.freshSchema(schema)
        let url = settings.databaseURL + (settings.databaseURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        let pool = PostgresPool(url: url, maxConnections: 4)
        defer { pool.close() }
        let queue = "bench_timers_\(getpid())"
        let amqp = try AMQPURL(settings.amqpURL)
        let setup = try AMQPConnection(url: amqp)
        try setup.declareQueue(queue)
        setup.close()
        defer { if let c = try? AMQPConnection(url: amqp) { try? c.deleteQueue(queue); c.close() } }

        let start = Date().addingTimeInterval(5)
        try pool.withConnection { db in
            // The million: due over the next 24 h, after the measurement.
            try db.execute("""
                INSERT INTO outbox (available_at, routing_key, message_id, body)
                SELECT now() + interval '1 hour' + (n * interval '86 milliseconds'), \(queue), 'far-' || n, '\\x7b7d'::bytea
                FROM generate_series(1, \(pending)) n
                """)
            // The measured ones: `rate` a second from `start`, each carrying its due time.
            try db.execute("""
                INSERT INTO outbox (available_at, routing_key, message_id, body)
                SELECT \(start)::timestamptz + (n * (1.0 / \(rate)) * interval '1 second'), \(queue), 'due-' || n,
                       convert_to(extract(epoch FROM \(start)::timestamptz + (n * (1.0 / \(rate)) * interval '1 second'))::text, 'UTF8')
                FROM generate_series(0, \(rate * seconds - 1)) n
                """)
            try db.execute("ANALYZE outbox")
        }
        let lateness = LatenessLog()
        let consumer = AMQPConsumer(.init(url: amqp, queue: queue, prefetch: 500)) { delivery in
            if let due = Double(String(decoding: delivery.body, as: UTF8.self)) {
                lateness.add(Date().timeIntervalSince1970 - due)
            }
            delivery.ack()
        }
        consumer.start()
        let publisher = AMQPPublisher(.init(url: amqp))
        let broker = AMQPBroker(publisher: publisher, endpoints: AMQPEndpoints(amqp), topology: Topology())
        let schedulers = (0..<2).map { _ in Scheduler(pool: pool, broker: broker, databaseURL: url) }
        for scheduler in schedulers { Thread { scheduler.run() }.start() }
        let expected = rate * seconds
        let deadline = start.addingTimeInterval(Double(seconds) + 30)
        while lateness.count < expected && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        schedulers.forEach { $0.stop(); _ = $0.waitUntilStopped(timeout: 5) }
        consumer.stop(grace: 1)
        publisher.close()
        let values = lateness.values.sorted()
        report.add("timers: lateness p50 with \(pending) pending", values.percentile(0.5) * 1000, unit: "ms")
        report.add("timers: lateness p99 (target ≤ 500)", values.percentile(0.99) * 1000, unit: "ms")
        report.add("timers: fired early (target 0)", Double(values.filter { $0 < -0.001 }.count), unit: "timers")
        report.add("timers: delivered of \(expected)", Double(values.count), unit: "timers")
    }
}

final class LatenessLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Double] = []
    func add(_ value: Double) { lock.lock(); storage.append(value); lock.unlock() }
    var values: [Double] { lock.lock(); defer { lock.unlock() }; return storage }
    var count: Int { lock.lock(); defer { lock.unlock() }; return storage.count }
}
