import BuzzAPI
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import PushDelivery
import XCTest

/// The whole path in one process, with no services (``InMemoryAPITestCase``): what a phone and
/// a backend do over HTTP, and what each phone is sent.
final class InMemoryWholePathTests: InMemoryAPITestCase {
    func testAPlanReachesThePhoneAndOnlyTheUnacknowledgedWindowGetsItsFallback() async throws {
        try await putLegDay()
        try await call("PUT", "/v1/subscribers/maya", ["timezone": "Europe/Berlin"], expect: 200)
        try await call("PUT", "/v1/subscribers/ola", ["timezone": "Europe/Berlin"], expect: 200)
        let mayasPhone = try await phone("maya"), olasPhone = try await phone("ola")
        for subscriber in ["maya", "ola"] {
            try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": subscriber, "properties": ["workoutId": "w1"]], expect: 202)
        }
        try workers.runUntilIdle()

        // Each phone got its plan in a silent push; Maya's phone schedules it and says so.
        let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: try XCTUnwrap(pushes(to: mayasPhone, .background).first).payload).local
        XCTAssertEqual(pushes(to: olasPhone, .background).count, 1)
        try await call("POST", "/v1/events", ["event": "$local.scheduled", "subscriberId": "maya", "timestamp": RFC3339.format(clock.now),
                                              "properties": ["localId": plan.id, "messageId": plan.messageId, "device": mayasPhone]],
                       device: "maya", expect: 202)
        try workers.runUntilIdle()
        XCTAssertTrue(push.sent.allSatisfy { $0.pushType == .background }, "nothing but plans before the moment")

        // At 07:00 Berlin the next morning: Ola's phone never confirmed, so Ola gets the same
        // message as an ordinary push, once; Maya's phone shows its own.
        clock.advance(by: 21 * 3600 + 60)
        try workers.runUntilIdle()
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: olasPhone, .alert).count, 1, "the fallback, once")
        XCTAssertEqual(pushes(to: mayasPhone, .alert).count, 0, "acknowledged: no fallback")
        let runId = String(plan.id.prefix { $0 != "/" })
        let summary = try await call("GET", "/v1/runs/\(runId)", expect: 200).object
        XCTAssertEqual(summary["status"] as? String, "completed")
        let local = ((summary["steps"] as? [[String: Any]])?.last?["local"] as? [String: Any]) ?? [:]
        XCTAssertEqual(local["acknowledged"] as? Bool, true)
        XCTAssertEqual(broker.deadLetters.values.map(\.count).reduce(0, +), 0, "nothing dead-lettered")
    }

    func testACancelBeforeTheMomentReachesThePhoneAndNothingFollows() async throws {
        try await putLegDay()
        let token = try await phone("maya")
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .background).count, 1, "the plan")
        try await call("POST", "/v1/events", ["event": "workout.completed", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .background).count, 2, "and the cancel")
        clock.advance(by: 21 * 3600 + 60)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "no fallback after a cancel")
        let plans = try await call("GET", "/v1/subscribers/maya/plans", device: "maya", expect: 200).object["plans"] as? [Any]
        XCTAssertEqual(plans?.count, 0, "sync lists nothing for a cancelled run")
    }

    func testEventsGet503WhileTheBrokerIsDownAndNothingIsHalfAccepted() async throws {
        broker.isConnected = false
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 503)
        let ready = try await call("GET", "/readyz")
        XCTAssertEqual(ready.status, 503)
        broker.isConnected = true
        try workers.runUntilIdle()
        XCTAssertTrue(store.withState { $0.runs.isEmpty }, "the refused event started nothing")
    }
}
