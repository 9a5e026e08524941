import AMQPClient
import BuzzServer
import Foundation
import XCTest

/// The ``Broker`` port's behaviour, held to the same tests on RabbitMQ (``AMQPBroker``) and in
/// memory (`InMemoryBroker`): where each message lands, what a consumer is handed, and what
/// ack and nack do.
final class BrokerConformanceTests: XCTestCase {
    let drivers: [(name: String, make: () throws -> BrokerDriver)] = [
        ("in-memory", { InMemoryBrokerDriver() }),
        ("rabbitmq", { try RabbitMQBrokerDriver() }),
    ]

    func eachDriver(_ body: (BrokerDriver) throws -> Void) throws {
        for (name, make) in drivers {
            let driver = try make()
            defer { driver.close() }
            let failuresBefore = testRun?.totalFailureCount ?? 0
            do { try body(driver) } catch { XCTFail("\(name): \(error)") }
            if (testRun?.totalFailureCount ?? 0) > failuresBefore { XCTFail("the failures above are the \(name) driver's") }
        }
    }

    /// Subscribes to `queue`, plays it until `count` deliveries arrived (or 5 s), and returns them.
    func receive(_ count: Int, from queue: Topology.Queue, on driver: BrokerDriver, log: DeliveryLog = DeliveryLog()) -> (BrokerSubscription, DeliveryLog) {
        let subscription = driver.broker.subscribe(queue, prefetch: 50) { log.add($0) }
        subscription.start()
        _ = TestServices.eventually(timeout: 5) {
            driver.play(queue)
            return log.all.count >= count
        }
        return (subscription, log)
    }

    func event(_ name: String, exchange: String, id: String) -> AMQPMessage {
        AMQPMessage(exchange: exchange, routingKey: Topology.routingKey(tenantId: "t_1", event: name),
                    body: Data(#"{"event":"\#(name)","subscriberId":"u_1"}"#.utf8), headers: ["x-test": "kept"], messageId: id)
    }

    func testEachMessageLandsInTheOneQueueTheTopologyRoutesItTo() throws {
        try eachDriver { driver in
            let topology = driver.topology
            try driver.broker.publishAndWait([
                event("workout.scheduled", exchange: topology.eventsExchange, id: "a"),
                event("$local.scheduled", exchange: topology.eventsExchange, id: "b"),
                event("workout.scheduled", exchange: topology.bulkEventsExchange, id: "c"),
                event("$local.released", exchange: topology.bulkEventsExchange, id: "d"),
                AMQPMessage(routingKey: topology.name(.fallbackCheck), body: Data("{}".utf8), messageId: "e"),
            ])
            let expected: [Topology.Queue: [String]] = [.trigger: ["a"], .ackIngest: ["b", "d"], .triggerBulk: ["c"], .fallbackCheck: ["e"],
                                                        .planDispatch: [], .planDispatchBulk: []]
            for (queue, ids) in expected {
                XCTAssertTrue(try TestServices.eventually(timeout: 5) { try driver.broker.readyCount(queue) == ids.count }, "\(queue) holds \(ids)")
                let (subscription, log) = receive(ids.count, from: queue, on: driver)
                XCTAssertEqual(Set(log.all.compactMap(\.messageId)), Set(ids), "\(queue)")
                log.all.forEach { $0.ack() }
                _ = subscription.cancel(timeout: 5)
                subscription.stop(grace: 5)
            }
        }
    }

    func testADeliveryCarriesWhatWasPublishedAndAnAckedOneIsGone() throws {
        try eachDriver { driver in
            try driver.broker.publishAndWait([event("workout.scheduled", exchange: driver.topology.eventsExchange, id: "m1")])
            let (subscription, log) = receive(1, from: .trigger, on: driver)
            let delivery = try XCTUnwrap(log.all.first)
            XCTAssertEqual(delivery.messageId, "m1")
            XCTAssertEqual(delivery.exchange, driver.topology.eventsExchange)
            XCTAssertEqual(delivery.routingKey, "t_1.workout.scheduled")
            XCTAssertEqual(String(decoding: delivery.body, as: UTF8.self), #"{"event":"workout.scheduled","subscriberId":"u_1"}"#)
            XCTAssertEqual(delivery.headers["x-test"]?.stringValue, "kept")
            XCTAssertFalse(delivery.redelivered)
            XCTAssertEqual(delivery.deliveryCount, 0)
            XCTAssertEqual(subscription.unsettledCount, 1, "handed out, not settled")
            delivery.ack()
            XCTAssertTrue(TestServices.eventually(timeout: 5) { subscription.unsettledCount == 0 }, "settled")
            driver.play(.trigger)
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertEqual(log.all.count, 1, "an acked message does not come back")
            XCTAssertEqual(try driver.broker.readyCount(.trigger), 0)
            _ = subscription.cancel(timeout: 5)
            subscription.stop(grace: 5)
        }
    }

    func testANackedMessageComesBackRedeliveredWithItsCountAndADroppedOneDoesNot() throws {
        try eachDriver { driver in
            try driver.broker.publishAndWait([AMQPMessage(routingKey: driver.topology.name(.planDispatch), body: Data("{}".utf8), messageId: "again"),
                                              AMQPMessage(routingKey: driver.topology.name(.planDispatch), body: Data("{}".utf8), messageId: "drop")])
            let (subscription, log) = receive(2, from: .planDispatch, on: driver)
            for delivery in log.all { delivery.nack(requeue: delivery.messageId == "again") }
            _ = TestServices.eventually(timeout: 5) {
                driver.play(.planDispatch)
                return log.all.count >= 3
            }
            Thread.sleep(forTimeInterval: 0.3)
            driver.play(.planDispatch)
            let again = log.all.dropFirst(2)
            XCTAssertEqual(again.map(\.messageId), ["again"], "the requeued message only")
            XCTAssertEqual(again.first?.redelivered, true)
            XCTAssertEqual(again.first?.deliveryCount, 1, "a quorum queue counts the redelivery")
            again.forEach { $0.ack() }
            _ = subscription.cancel(timeout: 5)
            subscription.stop(grace: 5)
        }
    }

    func testACancelledSubscriptionIsHandedNothingMore() throws {
        try eachDriver { driver in
            let (subscription, log) = receive(0, from: .ackIngest, on: driver)
            XCTAssertTrue(subscription.cancel(timeout: 5), "the broker confirmed the cancel")
            try driver.broker.publishAndWait([event("$local.scheduled", exchange: driver.topology.eventsExchange, id: "late")])
            XCTAssertTrue(try TestServices.eventually(timeout: 5) { try driver.broker.readyCount(.ackIngest) == 1 }, "it waits in the queue")
            driver.play(.ackIngest)
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertTrue(log.all.isEmpty)
            subscription.stop(grace: 5)
        }
    }
}
