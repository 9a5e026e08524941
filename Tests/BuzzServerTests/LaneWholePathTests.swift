import BuzzAPI
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import PushDelivery
import XCTest

/// Urgent before bulk over HTTP, in one process (``InMemoryAPITestCase``): which lane a
/// campaign, a flood and an ordinary event take, a cancel that overtakes its trigger, and a
/// plan whose turn came too late for its moment.
final class LaneWholePathTests: InMemoryAPITestCase {
    /// A workflow whose local window is at `{{trigger.at}}`.
    static let reminder = """
        { "key": "reminder", "trigger": { "event": "reminder.set" }, "cancelOn": [ { "event": "reminder.done" } ],
          "steps": [ { "name": "wait", "waitUntil": { "at": "{{trigger.at}}" } },
                     { "name": "nudge", "send": { "deliver": "local", "title": "Now", "body": "It is time." } } ] }
        """

    func putReminder() async throws {
        try await call("PUT", "/v1/workflows/reminder", try JSONSerialization.jsonObject(with: Data(Self.reminder.utf8)) as? [String: Any], expect: 200)
    }

    func testACampaignSentAsBulkTakesTheBulkLanesAndStillReachesThePhone() async throws {
        try await putLegDay()
        let token = try await phone("maya")
        try await call("POST", "/v1/events/bulk", ["events": [["event": "workout.scheduled", "subscriberId": "maya"]]], expect: 202)
        XCTAssertEqual(broker.depth(.triggerBulk), 1)
        XCTAssertEqual(broker.depth(.trigger), 0)
        try workers.run(.triggerBulk)
        // The plan's moment is tomorrow at 07:00, far past the urgent horizon: it waits in the bulk lane.
        XCTAssertEqual(broker.depth(.planDispatchBulk), 1)
        XCTAssertEqual(broker.depth(.planDispatch), 0)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .background).count, 1, "the campaign's plan reached the phone")
        // Devices may not send campaigns.
        try await call("POST", "/v1/events/bulk", ["event": "workout.scheduled", "subscriberId": "maya"], device: "maya", expect: 403)
    }

    func testABulkRunsPlanWhoseMomentIsNearGoesOutWithTheInteractivePlans() async throws {
        try await putReminder()
        let token = try await phone("maya")
        let soon = RFC3339.format(clock.now.addingTimeInterval(120)), later = RFC3339.format(clock.now.addingTimeInterval(3600))
        try await call("POST", "/v1/events/bulk", ["events": [["event": "reminder.set", "subscriberId": "maya", "properties": ["at": soon]],
                                                          ["event": "reminder.set", "subscriberId": "maya", "properties": ["at": later]]]],
                       expect: 202)
        try workers.run(.triggerBulk)
        XCTAssertEqual(pushes(to: token, .background).count, 1, "due in two minutes: urgent, pushed by the trigger stage at once")
        XCTAssertEqual(broker.depth(.planDispatch), 0)
        XCTAssertEqual(broker.depth(.planDispatchBulk), 1, "due in an hour: bulk")
    }

    func testUnmarkedEventsPastTheTenantsAllowanceAreAcceptedIntoTheBulkLane() async throws {
        lanes.interactiveEventsPerSecond = 1
        lanes.interactiveEventBurst = 2
        try setUpWithError()
        try await putLegDay()
        let flood = (1...5).map { ["event": "workout.scheduled", "subscriberId": "s\($0)"] }
        let answer = try await call("POST", "/v1/events", ["events": flood], expect: 202)
        XCTAssertEqual(answer.object["accepted"] as? Int, 5, "every event is accepted")
        XCTAssertEqual(broker.depth(.trigger), 2, "the allowance stays interactive")
        XCTAssertEqual(broker.depth(.triggerBulk), 3, "the rest waits in the bulk lane")
        // A device's events draw on the same allowance: past it, they wait in the bulk lane too.
        try await call("POST", "/v1/events", ["event": "workout.completed", "subscriberId": "maya"], device: "maya", expect: 202)
        XCTAssertEqual(broker.depth(.trigger), 2)
        XCTAssertEqual(broker.depth(.triggerBulk), 4)
        // After a second the allowance is back, for devices and the backend alike.
        clock.advance(by: 1)
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], device: "maya", expect: 202)
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "ola"], expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(store.withState { $0.runs.count }, 7, "every scheduled workout started its run")
        XCTAssertEqual(store.withState { $0.runs.values.filter(\.bulk).map { $0.subscriberId ?? "" }.sorted() }, ["ola", "s3", "s4", "s5"],
                       "the refilled token went to the phone's event, the backend's next one waited")
    }

    func testACancelThatOvertakesItsTriggerStillCancelsAndThePhoneGetsNothing() async throws {
        try await putLegDay()
        let token = try await phone("maya")
        try await call("POST", "/v1/events/bulk", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 202)
        clock.advance(by: 1)
        try await call("POST", "/v1/events", ["event": "workout.completed", "subscriberId": "maya"], expect: 202)
        // The interactive lane is served first: the cancel is handled before the trigger it follows.
        try workers.run(.trigger)
        try workers.runUntilIdle()
        XCTAssertEqual(push.sent.filter { $0.deviceToken == token }.count, 0, "no plan, no cancel: nothing reached the phone")
        let run = try XCTUnwrap(store.withState { $0.runs.values.first })
        let summary = try await call("GET", "/v1/runs/\(run.id.uuidString.lowercased())", expect: 200).object
        XCTAssertEqual(summary["status"] as? String, "cancelled")
        XCTAssertEqual((summary["cancelled"] as? [String: Any])?["event"] as? String, "workout.completed")
        clock.advance(by: 86_400)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "no fallback either")
    }

    func testACancelThatHappenedBeforeTheTriggerDoesNotCancelIt() async throws {
        try await putLegDay()
        let token = try await phone("maya")
        try await call("POST", "/v1/events", ["event": "workout.completed", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        clock.advance(by: 1)
        try await call("POST", "/v1/events/bulk", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .background).count, 1, "the new workout's plan")
        XCTAssertEqual(store.withState { $0.runs.values.first?.state.status }, .waiting)
    }

    func testAPlanWhoseTurnComesTooLateIsLeftToTheFallback() async throws {
        try await putReminder()
        let token = try await phone("maya")
        let moment = clock.now.addingTimeInterval(0.5)
        try await call("POST", "/v1/events", ["event": "reminder.set", "subscriberId": "maya", "properties": ["at": RFC3339.format(moment)]],
                       expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .background).count, 0, "half a second ahead: no phone could schedule it in time")
        clock.advance(by: 1)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .alert).count, 1, "the fallback covers it, once")
    }
}
