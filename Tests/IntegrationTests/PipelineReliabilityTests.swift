import AMQPClient
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PushDelivery
import XCTest

/// Redelivery, poison messages and competing workers over the real queues.
final class PipelineReliabilityTests: XCTestCase {
    func plan(_ notification: PushNotification) throws -> LocalPlan {
        try JSONDecoder().decode(SilentPlanPayload.self, from: notification.payload).local
    }

    /// Counts per device token: plans, alerts, cancels.
    func tally(_ harness: PipelineHarness, _ token: String) -> (plans: Int, alerts: Int, cancels: Int) {
        let pushes = harness.pushes(to: token)
        let cancels = pushes.filter { String(decoding: $0.payload, as: UTF8.self).contains("bk.cancel") }.count
        let plans = pushes.filter { String(decoding: $0.payload, as: UTF8.self).contains("bk.local") }.count
        return (plans, pushes.filter { $0.pushType == .alert }.count, cancels)
    }

    func testEveryMessageDeliveredTwiceChangesNothing() throws {
        let harness = try PipelineHarness(copies: 2)
        defer { harness.shutdown() }
        try harness.putLegDay()
        let people = ["a1", "a2", "n1", "n2", "c1"]
        var tokens: [String: String] = [:]
        for person in people { tokens[person] = try harness.subscriber(person)[0] }
        let moment = Date().addingTimeInterval(4)
        for person in people { try harness.scheduleWorkout(person, at: moment) }
        XCTAssertTrue(TestServices.eventually(timeout: 10) { people.allSatisfy { self.tally(harness, tokens[$0]!).plans >= 1 } })
        for person in ["a1", "a2"] {
            let p = try plan(harness.pushes(to: tokens[person]!)[0])
            try harness.acknowledge(person, localId: p.id, messageId: p.messageId)
        }
        try harness.publish(BuzzEvent(event: "workout.completed", subscriberId: "c1", timestamp: Date()))
        XCTAssertTrue(try TestServices.eventually(timeout: 20) { try harness.runs().allSatisfy { $0.state.status.isFinal } && harness.runs().count == 5 })
        Thread.sleep(forTimeInterval: 1.5)  // let any duplicate settle
        XCTAssertEqual(try harness.runs().count, 5, "a duplicated event started no second run")
        for person in people {
            let t = tally(harness, tokens[person]!)
            XCTAssertEqual(t.plans, 1, "\(person): one plan")
            XCTAssertEqual(t.alerts, person.hasPrefix("n") ? 1 : 0, "\(person): fallbacks")
            XCTAssertEqual(t.cancels, person == "c1" ? 1 : 0, "\(person): cancels")
        }
    }

    func testMalformedMessagesAreDeadLetteredWithTheirReasonWhileTheQueueKeepsFlowing() throws {
        let harness = try PipelineHarness()
        defer { harness.shutdown() }
        try harness.putLegDay()
        let token = try harness.subscriber("zed")[0]
        let topology = harness.topology
        try harness.publisher.publishAndWait([
            AMQPMessage(routingKey: topology.name(.trigger), body: Data("{not json".utf8), messageId: "garbage-1"),
            AMQPMessage(exchange: topology.eventsExchange, routingKey: "\(harness.tenantId).workout.scheduled", body: Data(#"{"event": 42}"#.utf8), messageId: "garbage-2"),
            AMQPMessage(routingKey: topology.name(.fallbackCheck), body: Data(#"{"type":"mystery"}"#.utf8), messageId: "garbage-3"),
        ])
        try harness.scheduleWorkout("zed", at: Date().addingTimeInterval(30))
        XCTAssertTrue(TestServices.eventually(timeout: 10) { harness.pushes(to: token).count == 1 }, "valid work behind the poison still flows")

        let letters = DeadLetters(topology: topology, amqp: TestServices.amqp)
        let listed = { try [Topology.Queue.trigger, .fallbackCheck].flatMap { try letters.list($0) } }
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try listed().count == 3 })
        let byId = Dictionary(try listed().map { ($0.messageId ?? "?", $0.reason) }, uniquingKeysWith: { a, _ in a })
        XCTAssertTrue(byId["garbage-1"]?.contains("not a valid event") == true, byId["garbage-1"] ?? "")
        XCTAssertTrue(byId["garbage-2"]?.contains("not a valid event") == true, byId["garbage-2"] ?? "")
        XCTAssertTrue(byId["garbage-3"]?.contains("not a pipeline message") == true, byId["garbage-3"] ?? "")
        XCTAssertEqual(harness.metrics.counter("buzzkit_messages_total", ["queue": "trigger", "outcome": "dead_lettered"]), 2)
    }

    func testTwoWorkersOnTheSameQueuesNeverProcessARunStepTwice() throws {
        let harness = try PipelineHarness()
        defer { harness.shutdown() }
        harness.startWorkers(Topology.Queue.allCases)
        try harness.putLegDay()
        let tokens = try harness.workouts(for: (0..<20).map { "p\($0)" }, in: 3).tokens
        XCTAssertTrue(try TestServices.eventually(timeout: 20) {
            let runs = try harness.runs()
            return runs.count == 20 && runs.allSatisfy { $0.state.status == .completed }
        })
        XCTAssertTrue(TestServices.eventually(timeout: 5) { tokens.allSatisfy { self.tally(harness, $0).alerts == 1 } })
        Thread.sleep(forTimeInterval: 0.5)
        for token in tokens {
            let t = tally(harness, token)
            XCTAssertEqual(t.plans, 1)
            XCTAssertEqual(t.alerts, 1)
        }
    }
}

