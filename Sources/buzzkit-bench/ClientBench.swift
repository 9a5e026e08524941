import AMQPClient
import Foundation
import PostgresClient

/// The foundation's figures: PostgreSQL commits and RabbitMQ publish/consume through
/// BuzzKit's own Swift clients.
enum ClientBench {
    static func declareQueue(_ name: String, settings: BenchSettings) throws {
        let connection = try AMQPConnection(url: AMQPURL(settings.amqpURL))
        defer { connection.close() }
        try connection.declareQueue(name)
    }

    static func deleteQueue(_ name: String, settings: BenchSettings) throws {
        let connection = try AMQPConnection(url: AMQPURL(settings.amqpURL))
        defer { connection.close() }
        try connection.deleteQueue(name)
    }

    static func run(settings: BenchSettings, report: inout BenchReport) throws {
        FileHandle.standardError.write(Data("BuzzKit clients...\n".utf8))
        report.add("PostgreSQL one-row commits/s, 1 connection", try commits(threads: 1, settings: settings), unit: "tx/s", raw: settings.raw["RAW_PG_1"])
        report.add("PostgreSQL one-row commits/s, 4 connections", try commits(threads: 4, settings: settings), unit: "tx/s", raw: settings.raw["RAW_PG_4"])
        let queue = "bench_swift_\(getpid())"
        try declareQueue(queue, settings: settings)
        defer { try? deleteQueue(queue, settings: settings) }
        report.add("RabbitMQ persistent publishes with confirms", try publish(queue: queue, settings: settings), unit: "msg/s", raw: settings.raw["RAW_AMQP_PUBLISH"])
        report.add("RabbitMQ consume with manual acks", try consume(queue: queue, settings: settings), unit: "msg/s", raw: settings.raw["RAW_AMQP_CONSUME"])
    }

    /// One-row INSERT per transaction (autocommit) from `threads` threads for `settings.seconds`.
    static func commits(threads: Int, settings: BenchSettings) throws -> Double {
        let pool = PostgresPool(url: settings.databaseURL, maxConnections: threads)
        defer { pool.close() }
        let counter = Counter()
        let deadline = Date().addingTimeInterval(settings.seconds)
        let group = DispatchGroup()
        let started = Date()
        for _ in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                var n = 0
                try? pool.withConnection { db in
                    while Date() < deadline {
                        try db.execute("INSERT INTO bench.commits (v) VALUES (\(n))")
                        n += 1
                    }
                }
                counter.add(n)
            }.start()
        }
        group.wait()
        return Double(counter.value) / Date().timeIntervalSince(started)
    }

    static func publish(queue: String, settings: BenchSettings) throws -> Double {
        let publisher = AMQPPublisher(.init(url: try AMQPURL(settings.amqpURL)))
        defer { publisher.close() }
        let body = Data(repeating: UInt8(ascii: "x"), count: 200)
        let messages = (0..<settings.messages).map { _ in AMQPMessage(routingKey: queue, body: body, contentType: nil) }
        let started = Date()
        try publisher.publishAndWait(messages)
        return Double(messages.count) / Date().timeIntervalSince(started)
    }

    static func consume(queue: String, settings: BenchSettings) throws -> Double {
        let counter = Counter()
        let firstAt = LockedDate()
        let target = settings.messages
        let consumer = AMQPConsumer(.init(url: try AMQPURL(settings.amqpURL), queue: queue, prefetch: 500)) { delivery in
            delivery.ack()
            if counter.add(1) == 1 { firstAt.set(Date()) }
        }
        consumer.start()
        while counter.value < target { Thread.sleep(forTimeInterval: 0.001) }
        let elapsed = Date().timeIntervalSince(firstAt.value ?? Date())
        consumer.stop(grace: 5)
        return Double(target - 1) / elapsed
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    @discardableResult
    func add(_ n: Int) -> Int { lock.lock(); defer { lock.unlock() }; count += n; return count }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

final class LockedDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date?
    func set(_ d: Date) { lock.lock(); date = d; lock.unlock() }
    var value: Date? { lock.lock(); defer { lock.unlock() }; return date }
}
