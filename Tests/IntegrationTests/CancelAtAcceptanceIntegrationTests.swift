import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// A cancelling event counts from the moment the API accepts it, as an acknowledgment does:
/// when the trigger stage is behind (stopped here, as after a RabbitMQ restart its consumers
/// came back seconds after fallback-check's), the window's moment still finds the cancel, and
/// the person gets no reminder of a workout they already did.
final class CancelAtAcceptanceIntegrationTests: APITestCase {
    /// Every stage; the trigger stage in a worker of its own, which a test stops.
    override func makeHarness() throws -> APIHarness { try APIHarness(queues: [.planDispatch, .fallbackCheck, .ackIngest]) }

    override func prepare() throws { pipeline.startWorkers([.trigger]) }

    private func stopTriggerStage() { pipeline.extraWorkers.forEach { $0.stop(grace: 2) } }

    private func post(_ name: String, subscriber: String, workoutId: String) {
        let body: [String: Any] = ["event": name, "subscriberId": subscriber, "properties": ["workoutId": workoutId]]
        XCTAssertEqual(api.call("POST", "/v1/events", body: body, key: api.secretKey).status, 202)
    }

    func testACompletionAcceptedWhileTheTriggerStageIsDownCancelsTheRunAtItsMoment() throws {
        let (_, runId, tokens, moment) = try api.window("maya", devices: 1, lead: 4)
        stopTriggerStage()
        post("workout.completed", subscriber: "maya", workoutId: "w1")
        XCTAssertTrue(TestServices.eventually(timeout: 14) { self.api.summary(runId).status == "cancelled" }, "cancelled at the moment")
        XCTAssertGreaterThanOrEqual(Date(), moment.addingTimeInterval(-0.5), "by the window's moment, not before: nothing else handled the completion")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(pipeline.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 0, "no fallback after the completion")
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_cancels_total", ["by": "accepted_event"]), 1)

        pipeline.startWorkers([.trigger])  // the completion, handled late, finds the run cancelled
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(api.summary(runId).status, "cancelled")
        XCTAssertEqual(pipeline.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 0)
    }

    func testAMoveOfAnotherWorkoutAcceptedMeanwhileLeavesTheFallback() throws {
        let (_, runId, tokens, _) = try api.window("kim", devices: 1, lead: 4)
        stopTriggerStage()
        post("workout.moved", subscriber: "kim", workoutId: "w-other")  // the rule cancels only a move of this run's workout
        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens, lead: 4)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(alerts, [1], "the reminder still comes, once")
    }
}
