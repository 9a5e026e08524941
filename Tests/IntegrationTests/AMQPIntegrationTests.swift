import AMQPClient
import Foundation
import XCTest

final class AMQPIntegrationTests: XCTestCase {
    var queue = ""

    override func setUpWithError() throws {
        queue = TestServices.uniqueName("q")
        let connection = try AMQPConnection(url: TestServices.amqpURL)
        try connection.declareQueue(queue)
        connection.close()
    }

    override func tearDown() {
        if let connection = try? AMQPConnection(url: TestServices.amqpURL) {
            try? connection.deleteQueue(queue)
            try? connection.deleteQueue(queue + ".dlq")
            connection.close()
        }
    }

    func message(_ n: Int) -> AMQPMessage {
        AMQPMessage(routingKey: queue, body: Data("{\"n\":\(n)}".utf8), messageId: "m\(n)")
    }

    func depth() throws -> Int {
        let connection = try AMQPConnection(url: TestServices.amqpURL)
        defer { connection.close() }
        return try connection.queueDepth(queue).messages
    }

    /// Consumes until `count` distinct message ids were seen (or the timeout passes).
    func consumeAll(expecting count: Int, timeout: TimeInterval = 30) throws -> (ids: Set<String>, deliveries: Int) {
        let seen = SeenIds()
        let consumer = AMQPConsumer(.init(url: TestServices.amqpURL, queue: queue, prefetch: 200)) { delivery in
            seen.insert(delivery.messageId ?? "?")
            delivery.ack()
        }
        consumer.start()
        _ = TestServices.eventually(timeout: timeout) { seen.ids.count >= count }
        consumer.stop(grace: 5)
        return (seen.ids, seen.total)
    }

    func testPublishedMessagesAreConsumedAndAcked() throws {
        let publisher = AMQPPublisher(.init(url: TestServices.amqpURL))
        defer { publisher.close() }
        try publisher.publishAndWait((0..<1000).map(message))
        XCTAssertEqual(try depth(), 1000)
        let result = try consumeAll(expecting: 1000)
        XCTAssertEqual(result.ids.count, 1000)
        XCTAssertTrue(try TestServices.eventually(timeout: 5) { try depth() == 0 }, "acked messages left the queue")
    }

    /// A cluster list whose first nodes are down: publisher and consumer find the live one,
    /// whichever node they start from.
    func testClientsConnectPastDeadNodesOfTheirList() throws {
        let nodes = AMQPEndpoints([AMQPURL(host: "127.0.0.1", port: 1), TestServices.amqpURL, AMQPURL(host: "127.0.0.1", port: 2)])
        for start in 0..<3 { XCTAssertEqual(try nodes.connect(startingAt: start).index, 1) }
        let publisher = AMQPPublisher(.init(endpoints: nodes))
        defer { publisher.close() }
        try publisher.publishAndWait((0..<50).map(message))
        let seen = SeenIds()
        let consumer = AMQPConsumer(.init(endpoints: nodes, queue: queue, prefetch: 100)) { delivery in
            seen.insert(delivery.messageId ?? "?")
            delivery.ack()
        }
        consumer.start()
        XCTAssertTrue(TestServices.eventually(timeout: 15) { seen.ids.count == 50 })
        consumer.stop(grace: 5)
    }

    /// Settlements go out coalesced (one `multiple` ack for a run settled from the oldest):
    /// deliveries still being worked on when later ones are acked must stay unsettled, so a
    /// consumer that dies holding them hands exactly those to the next one.
    func testDeliveriesHeldWhileLaterOnesAreAckedAreRedeliveredAfterADeath() throws {
        let publisher = AMQPPublisher(.init(url: TestServices.amqpURL))
        try publisher.publishAndWait((0..<200).map(message))
        publisher.close()
        let handed = HandedDeliveries()
        let doomed = AMQPConsumer(.init(url: TestServices.amqpURL, queue: queue, prefetch: 200)) { delivery in
            handed.append(delivery)
        }
        doomed.start()
        XCTAssertTrue(TestServices.eventually(timeout: 10) { handed.all.count == 200 })
        // Acked in a shuffled order from four threads at once; every tenth is held.
        let toAck = handed.all.filter { !($0.messageId ?? "").hasSuffix("5") }.shuffled()
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for (index, delivery) in toAck.enumerated() where index % 4 == part { delivery.ack() }
        }
        XCTAssertTrue(TestServices.eventually(timeout: 10) { doomed.unsettledCount == 20 })
        doomed.stop(grace: 0)  // dies holding the 20

        let redelivered = SeenIds()
        let survivor = AMQPConsumer(.init(url: TestServices.amqpURL, queue: queue, prefetch: 50)) { delivery in
            redelivered.insert(delivery.messageId ?? "?")
            delivery.ack()
        }
        survivor.start()
        XCTAssertTrue(TestServices.eventually(timeout: 10) { redelivered.total >= 20 })
        Thread.sleep(forTimeInterval: 0.5)
        survivor.stop(grace: 5)
        XCTAssertEqual(redelivered.ids, Set((0..<200).filter { $0 % 10 == 5 }.map { "m\($0)" }))
        XCTAssertEqual(redelivered.total, 20, "nothing acked was delivered again")
        XCTAssertEqual(try depth(), 0)
    }

    /// A publisher whose setup meets a queue declared with other arguments (an older version's
    /// dead-letter queue: RabbitMQ closes the channel, 406, and the declare is tolerated) still
    /// gets its confirms: the reopened channel is in confirm mode again. Before, every publish
    /// of the API timed out after an upgrade (503 for every event batch).
    func testConfirmsComeAfterASetupDeclareTheBrokerRefused() throws {
        let setup = try AMQPConnection(url: TestServices.amqpURL)
        try setup.declareQueue(queue + ".dlq")
        setup.close()
        let dlq = queue + ".dlq"
        let publisher = AMQPPublisher(.init(url: TestServices.amqpURL, confirmTimeout: 5, onConnect: { connection in
            do {
                try connection.declareQueue(dlq, arguments: ["x-message-ttl": .int(60_000)])
            } catch let error as AMQPError where error.replyCode == 406 {
                _ = try connection.queueDepth(dlq)
            }
        }))
        defer { publisher.close() }
        try publisher.publishAndWait((0..<20).map(message))
        XCTAssertEqual(try depth(), 20)
    }

    func testAsyncPublishIsConfirmed() async throws {
        let publisher = AMQPPublisher(.init(url: TestServices.amqpURL))
        try await publisher.publish(message(1))
        try await publisher.publishBatch((2...10).map(message))
        publisher.close()
        XCTAssertEqual(try depth(), 10)
    }

    func testConsumerThatDiesWithoutAckingGetsItsMessageRedelivered() throws {
        let publisher = AMQPPublisher(.init(url: TestServices.amqpURL))
        try publisher.publishAndWait([message(7)])
        publisher.close()

        let firstSeen = SeenIds()
        let doomed = AMQPConsumer(.init(url: TestServices.amqpURL, queue: queue, prefetch: 10)) { delivery in
            firstSeen.insert(delivery.messageId ?? "?")  // never acked: the "worker" dies here
        }
        doomed.start()
        XCTAssertTrue(TestServices.eventually(timeout: 10) { firstSeen.total == 1 })
        doomed.stop(grace: 0)

        let redelivered = SeenIds()
        let survivor = AMQPConsumer(.init(url: TestServices.amqpURL, queue: queue, prefetch: 10)) { delivery in
            redelivered.insert(delivery.messageId ?? "?", redelivered: delivery.redelivered)
            delivery.ack()
        }
        survivor.start()
        XCTAssertTrue(TestServices.eventually(timeout: 10) { redelivered.total == 1 })
        survivor.stop(grace: 5)
        XCTAssertEqual(redelivered.ids, ["m7"])
        XCTAssertEqual(redelivered.redeliveredCount, 1, "the broker marks it as redelivered")
        XCTAssertEqual(try depth(), 0)
    }

    func testPassiveDeclareGivesExactDepthAndMissingQueueKeepsConnectionUsable() throws {
        let connection = try AMQPConnection(url: TestServices.amqpURL)
        defer { connection.close() }
        XCTAssertThrowsError(try connection.queueDepth("no-such-queue-\(UUID())")) { error in
            XCTAssertEqual((error as? AMQPError)?.replyCode, 404)
        }
        XCTAssertEqual(try connection.queueDepth(queue).messages, 0)
    }

    func testPoisonMessageIsDeadLetteredAfterDeliveryLimit() throws {
        let poisonQueue = queue + ".poison"
        let dlq = queue + ".dlq"
        let setup = try AMQPConnection(url: TestServices.amqpURL)
        try setup.declareQueue(dlq)
        try setup.declareQueue(poisonQueue, arguments: ["x-dead-letter-exchange": "", "x-dead-letter-routing-key": .string(dlq),
                                                        "x-delivery-limit": 2])
        setup.close()
        defer { if let c = try? AMQPConnection(url: TestServices.amqpURL) { try? c.deleteQueue(poisonQueue); c.close() } }

        let publisher = AMQPPublisher(.init(url: TestServices.amqpURL))
        try publisher.publishAndWait([AMQPMessage(routingKey: poisonQueue, body: Data("not json".utf8), messageId: "poison")])
        publisher.close()

        let attempts = SeenIds()
        let consumer = AMQPConsumer(.init(url: TestServices.amqpURL, queue: poisonQueue, prefetch: 1)) { delivery in
            attempts.insert(delivery.messageId ?? "?")
            delivery.nack(requeue: true)  // keeps failing
        }
        consumer.start()
        let connection = try AMQPConnection(url: TestServices.amqpURL)
        defer { connection.close() }
        XCTAssertTrue(try TestServices.eventually(timeout: 15) { try connection.queueDepth(dlq).messages == 1 },
                      "the poison message reached the dead-letter queue")
        consumer.stop(grace: 1)
        XCTAssertEqual(attempts.total, 3, "first delivery plus the 2 allowed redeliveries, never more")
        XCTAssertEqual(try connection.queueDepth(poisonQueue).messages, 0)
    }

    func testPublishesSurviveBrokerRestart() throws {
        let publisher = AMQPPublisher(.init(url: TestServices.amqpURL, confirmTimeout: 120))
        defer { publisher.close() }
        let total = 3000
        let confirmed = SeenIds()
        let failures = SeenIds()
        let done = DispatchGroup()
        let queue = self.queue
        let feeder = Thread {
            for n in 0..<total {
                done.enter()
                publisher.publish(AMQPMessage(routingKey: queue, body: Data("{\"n\":\(n)}".utf8), messageId: "m\(n)")) { result in
                    switch result {
                    case .success: confirmed.insert("m\(n)")
                    case .failure(let error): failures.insert("\(error)")
                    }
                    done.leave()
                }
                if n % 100 == 0 { Thread.sleep(forTimeInterval: 0.02) }
            }
        }
        feeder.start()
        XCTAssertTrue(TestServices.eventually(timeout: 30) { confirmed.total > 200 })
        try TestServices.services("restart-rabbitmq")
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "every publish was settled")
        XCTAssertEqual(failures.total, 0, "failures: \(failures.ids.prefix(3))")
        XCTAssertEqual(confirmed.ids.count, total)
        let consumed = try consumeAll(expecting: total, timeout: 60)
        XCTAssertEqual(consumed.ids.count, total, "every confirmed message was in the queue after the restart")
        XCTAssertTrue(consumed.ids.isSuperset(of: confirmed.ids))
    }
}

final class HandedDeliveries: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [AMQPDelivery] = []
    func append(_ delivery: AMQPDelivery) { lock.lock(); storage.append(delivery); lock.unlock() }
    var all: [AMQPDelivery] { lock.lock(); defer { lock.unlock() }; return storage }
}

final class SeenIds: @unchecked Sendable {
    private let lock = NSLock()
    private var storage = Set<String>()
    private var count = 0
    private var redelivered = 0
    func insert(_ id: String, redelivered wasRedelivered: Bool = false) {
        lock.lock()
        storage.insert(id)
        count += 1
        if wasRedelivered { redelivered += 1 }
        lock.unlock()
    }
    var ids: Set<String> { lock.lock(); defer { lock.unlock() }; return storage }
    var total: Int { lock.lock(); defer { lock.unlock() }; return count }
    var redeliveredCount: Int { lock.lock(); defer { lock.unlock() }; return redelivered }
}
