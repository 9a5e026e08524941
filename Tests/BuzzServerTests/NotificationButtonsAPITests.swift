import BuzzEngine
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import PushDelivery
import XCTest

/// Buttons through the API (DESIGN §4c): the plan push and sync carry the buttons and their
/// category, the fallback names the category in `aps`, and what the person does with the
/// notification (a button, an open) shows on the run summary's step; a "Done" whose event is
/// the workflow's cancelling event cancels the run.
final class NotificationButtonsAPITests: InMemoryAPITestCase {
    nonisolated(unsafe) static let workflow: [String: Any] = [
        "key": "leg-day", "trigger": ["event": "workout.scheduled"], "cancelOn": [["event": "workout.completed"]],
        "steps": [["name": "morning-of", "waitUntil": ["time": "07:00", "timezone": "subscriber"]],
                  ["name": "nudge", "send": ["deliver": "local", "title": "Leg day", "body": "6:00 with Maya.",
                                              "interruptionLevel": "timeSensitive", "threadId": "workouts",
                                              "actions": [["id": "done", "title": "Done", "event": "workout.completed"],
                                                          ["id": "snooze", "title": "Snooze 10 min", "snooze": "10m"]]]],
                  ["name": "check-in", "delay": ["hours": 2]],
                  ["name": "how-was-it", "send": ["deliver": "push", "title": "How was leg day?", "body": "Tell Maya."]]]]
    let token = String(repeating: "ab", count: 32)

    private func planned() async throws -> LocalPlan {
        try await call("PUT", "/v1/workflows/leg-day", Self.workflow, expect: 200)
        try await call("PUT", "/v1/subscribers/maya", ["timezone": "Europe/Berlin"], expect: 200)
        try await call("PUT", "/v1/subscribers/maya/devices", ["platform": "ios", "token": token, "topic": "com.example.gym"], device: "maya", expect: 200)
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        let push = try XCTUnwrap(pushes(to: token, .background).last)
        return try JSONDecoder().decode(SilentPlanPayload.self, from: push.payload).local
    }

    private func track(_ event: String, _ properties: [String: Any]) async throws {
        try await call("POST", "/v1/events", ["event": event, "subscriberId": "maya", "timestamp": RFC3339.format(clock.now),
                                              "properties": properties], device: "maya", expect: 202)
        try workers.runUntilIdle()
    }

    private func step(_ plan: LocalPlan, _ name: String) async throws -> [String: Any] {
        let summary = try await call("GET", "/v1/runs/\(plan.id.prefix { $0 != "/" })", expect: 200).object
        return try XCTUnwrap((summary["steps"] as? [[String: Any]])?.first { $0["name"] as? String == name })
    }

    func testThePlanAndSyncCarryTheButtonsAndTheFallbackItsCategory() async throws {
        let plan = try await planned()
        XCTAssertEqual(plan.actions.map(\.id), ["done", "snooze"])
        XCTAssertEqual(plan.presentation.interruptionLevel, .timeSensitive)
        let category = try XCTUnwrap(plan.presentation.category)
        let sync = try await call("GET", "/v1/subscribers/maya/plans", device: "maya", expect: 200).object
        let categories = try XCTUnwrap(sync["categories"] as? [[String: Any]])
        XCTAssertEqual(categories.map { $0["id"] as? String }, [category], "sync carries the buttons, for a fallback whose plan never arrived")
        XCTAssertEqual((categories.first?["actions"] as? [[String: Any]])?.map { $0["id"] as? String }, ["done", "snooze"])

        clock.advance(by: 21 * 3600 + 60)  // nobody acknowledged: the fallback at 07:00
        try workers.runUntilIdle()
        try workers.runUntilIdle()
        let fallback = try XCTUnwrap(pushes(to: token, .alert).first)
        let aps = try XCTUnwrap((try JSONSerialization.jsonObject(with: fallback.payload) as? [String: Any])?["aps"] as? [String: Any])
        XCTAssertEqual(aps["category"] as? String, category, "the same buttons on the fallback")
        XCTAssertEqual(aps["interruption-level"] as? String, "time-sensitive")
        XCTAssertEqual(aps["thread-id"] as? String, "workouts")
    }

    func testDoneCancelsTheRunAndTheStepShowsTheButtonAndTheOpen() async throws {
        let plan = try await planned()
        try await track(BuzzEvent.localScheduled, ["localId": plan.id, "messageId": plan.messageId, "device": token])
        clock.advance(by: 21 * 3600 + 60)  // 07:00: the phone shows its own
        try workers.runUntilIdle()
        try await track(BuzzEvent.pushOpened, ["messageId": plan.messageId])
        try await track(BuzzEvent.pushAction, ["messageId": plan.messageId, "localId": plan.id, "actionId": "done"])
        try await track("workout.completed", ["messageId": plan.messageId, "localId": plan.id])
        let nudge = try await step(plan, "nudge")
        XCTAssertEqual((nudge["actions"] as? [[String: Any]])?.map { $0["actionId"] as? String }, ["done"])
        XCTAssertNotNil((nudge["opened"] as? [String: Any])?["at"], "the tap shows on the step")
        clock.advance(by: 3 * 3600)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "done: nothing else of the run reaches the person (no fallback, no check-in)")
        let summary = try await call("GET", "/v1/runs/\(plan.id.prefix { $0 != "/" })", expect: 200).object
        XCTAssertEqual(summary["status"] as? String, "cancelled")
    }

    func testAStepWithoutOpensOrButtonsSaysSo() async throws {
        let plan = try await planned()
        let nudge = try await step(plan, "nudge")
        XCTAssertTrue(nudge["opened"] is NSNull, "explicit null")
        XCTAssertEqual((nudge["actions"] as? [Any])?.count, 0)
    }

    func testAButtonOfSomeoneElsesNotificationIsNotRecordedAndABadOneIsRefused() async throws {
        let plan = try await planned()
        try await call("POST", "/v1/events", ["event": BuzzEvent.pushAction, "subscriberId": "kim",
                                              "properties": ["messageId": plan.messageId, "actionId": "done"]], device: "kim", expect: 202)
        try workers.runUntilIdle()
        let nudge = try await step(plan, "nudge")
        XCTAssertEqual((nudge["actions"] as? [Any])?.count, 0, "not Kim's notification")
        try await call("POST", "/v1/events", ["event": BuzzEvent.pushAction, "subscriberId": "maya", "properties": ["messageId": plan.messageId]],
                       device: "maya", expect: 400)
        try await call("POST", "/v1/events", ["event": "$push.anything", "subscriberId": "maya", "properties": [:]], device: "maya", expect: 400)
    }
}
