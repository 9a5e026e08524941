import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import PushDelivery
import XCTest

/// A window whose decision ends its run is decided at its moment without loading the run. An
/// acknowledged one needs no work at all: the scheduler settles it from the acknowledgments
/// alone and no `fallback-check` message goes out. An unacknowledged one (or one whose
/// acknowledgment was taken back) gets its fallback from `fallback-check`, built from the plan
/// as sent. Either way the summary reads decided at once, and the window completer writes the
/// run after its delay.
final class WindowSettlementTests: InMemoryAPITestCase {
    /// A planned leg-day window for `subscriber` on one new phone: (phone token, plan).
    func plannedWindow(_ subscriber: String) async throws -> (String, LocalPlan) {
        try await call("PUT", "/v1/subscribers/\(subscriber)", ["timezone": "Europe/Berlin"], expect: 200)
        let token = try await phone(subscriber)
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": subscriber], expect: 202)
        try workers.runUntilIdle()
        let push = try XCTUnwrap(pushes(to: token, .background).last)
        return (token, try JSONDecoder().decode(SilentPlanPayload.self, from: push.payload).local)
    }

    /// The phone's `$local.scheduled` (or `$local.released`) for `plan`.
    func say(_ event: String, _ plan: LocalPlan, subscriber: String, token: String, reason: String? = nil) async throws {
        var properties: [String: Any] = ["localId": plan.id, "messageId": plan.messageId, "device": token]
        if let reason { properties["reason"] = reason }
        try await call("POST", "/v1/events", ["event": event, "subscriberId": subscriber, "timestamp": RFC3339.format(clock.now),
                                              "properties": properties], device: subscriber, expect: 202)
        try workers.runUntilIdle()
    }

    func summary(_ plan: LocalPlan) async throws -> [String: Any] {
        try await call("GET", "/v1/runs/\(plan.id.prefix { $0 != "/" })", expect: 200).object
    }

    func storedStatus(_ plan: LocalPlan) -> String? {
        store.withState { state in state.runs.values.first { $0.id.lowercasedText == String(plan.id.prefix { $0 != "/" }) }?.state.status.rawValue }
    }

    /// A scheduler over the workers' outbox and broker, to relay due timers without handling them.
    func relay() -> Scheduler {
        Scheduler(outbox: workers.outbox, broker: broker, databaseURL: nil, configuration: .init(topology: workers.context.topology, packSize: 100))
    }

    /// To the moment (07:00 Berlin next morning) and a minute past it, well inside its lifetime.
    func passTheMoment() throws {
        clock.advance(by: 21 * 3600 + 60)
        try workers.runUntilIdle()
    }

    func testAnAcknowledgedWindowIsSettledWithoutAQueueMessageAndItsSummaryIsTheSameBeforeAndAfterTheRunIsWritten() async throws {
        try await putLegDay()
        let (token, plan) = try await plannedWindow("maya")
        clock.advance(by: 60)
        let acknowledgedAt = clock.now
        try await say(BuzzEvent.localScheduled, plan, subscriber: "maya", token: token)
        try passTheMoment()

        XCTAssertEqual(broker.routed[.fallbackCheck] ?? 0, 0, "no fallback-check message for an acknowledged window")
        XCTAssertEqual(workers.context.metrics.counter("buzzkit_windows_settled_total"), 1)
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "no fallback")
        XCTAssertEqual(storedStatus(plan), "waiting", "the run is filed under completed later")
        let derived = try await summary(plan)
        XCTAssertEqual(derived["status"] as? String, "completed")
        let step = try XCTUnwrap((derived["steps"] as? [[String: Any]])?.last)
        XCTAssertEqual(step["status"] as? String, "scheduled on device")
        let local = try XCTUnwrap(step["local"] as? [String: Any])
        XCTAssertEqual(local["acknowledgedAt"] as? String, RFC3339.format(acknowledgedAt), "the acknowledgment's time")

        // After the completion delay the run is filed under completed, and reads exactly the same.
        clock.advance(by: 11)
        try workers.runUntilIdle()
        XCTAssertEqual(storedStatus(plan), "completed")
        XCTAssertEqual(store.withState { $0.filedDecisions.count }, 1, "the decision is filed, and kept with its run")
        let written = try await summary(plan)
        XCTAssertEqual(try JSONSerialization.data(withJSONObject: written, options: .sortedKeys),
                       try JSONSerialization.data(withJSONObject: derived, options: .sortedKeys))
        XCTAssertEqual(pushes(to: token, .alert).count, 0)
    }

    func testAReleaseBeforeTheMomentLeavesTheWindowToTheFallbackCheck() async throws {
        try await putLegDay()
        let (token, plan) = try await plannedWindow("ola")
        try await say(BuzzEvent.localScheduled, plan, subscriber: "ola", token: token)
        clock.advance(by: 60)
        try await say(BuzzEvent.localReleased, plan, subscriber: "ola", token: token, reason: "pending-limit")
        try passTheMoment()
        XCTAssertEqual(workers.context.metrics.counter("buzzkit_windows_settled_total"), 0)
        XCTAssertEqual(broker.routed[.fallbackCheck], 1, "decided by the worker")
        XCTAssertEqual(pushes(to: token, .alert).count, 1, "the fallback, once")
        let derived = try await summary(plan)
        let local = try XCTUnwrap((derived["steps"] as? [[String: Any]])?.last?["local"] as? [String: Any])
        XCTAssertEqual((local["fallback"] as? [String: Any])?["reason"] as? String, RunSummary.LocalWindow.Fallback.releasedByEveryDevice)
        clock.advance(by: 11)
        try workers.runUntilIdle()
        XCTAssertEqual(storedStatus(plan), "completed")
    }

    func testAnUnacknowledgedWindowGetsItsFallbackWithoutLoadingTheRunAndReadsTheSameBeforeAndAfterTheRunIsWritten() async throws {
        try await putLegDay()
        let (token, plan) = try await plannedWindow("ana")
        let other = try await phone("ana")
        // The moment's timer, delivered three times (a redelivery, twice in one batch).
        clock.advance(by: 21 * 3600 + 60)
        try relay().relayDue()
        let timer = try XCTUnwrap(broker.removeReady(.fallbackCheck).first)
        try broker.publishAndWait([timer, timer, timer])
        try workers.runUntilIdle()

        XCTAssertEqual(workers.context.metrics.counter("buzzkit_windows_decided_outside_run_total"), 1)
        XCTAssertEqual(storedStatus(plan), "waiting", "the run is filed under completed later")
        for phone in [token, other] {
            let alerts = pushes(to: phone, .alert)
            XCTAssertEqual(alerts.count, 1, "the fallback, once on each active phone")
            XCTAssertEqual(alerts.first?.collapseId, "\(plan.id)/fallback")
            let sent = try JSONDecoder().decode(AlertPayload.self, from: try XCTUnwrap(alerts.first).payload)
            XCTAssertEqual(sent, AlertPayload(title: plan.title, body: plan.body, messageId: plan.messageId, localId: plan.id,
                                              deepLink: plan.deepLink, data: plan.data), "the plan's own message")
        }
        let derived = try await summary(plan)
        XCTAssertEqual(derived["status"] as? String, "completed")
        let step = try XCTUnwrap((derived["steps"] as? [[String: Any]])?.last)
        XCTAssertEqual(step["status"] as? String, "fallback sent")
        let fallback = try XCTUnwrap((step["local"] as? [String: Any])?["fallback"] as? [String: Any])
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.noConfirmation)
        XCTAssertEqual(fallback["idempotencyKey"] as? String, "\(plan.id)/fallback")
        XCTAssertEqual((step["deliveries"] as? [[String: Any]])?.filter { $0["kind"] as? String == "fallback" }.count, 2)

        // After the delay the run is filed under completed and reads exactly the same.
        clock.advance(by: 11)
        try workers.runUntilIdle()
        XCTAssertEqual(storedStatus(plan), "completed")
        XCTAssertEqual(store.withState { $0.filedDecisions.count }, 1)
        let written = try await summary(plan)
        XCTAssertEqual(try JSONSerialization.data(withJSONObject: written, options: .sortedKeys),
                       try JSONSerialization.data(withJSONObject: derived, options: .sortedKeys))
    }

    func testAnAcknowledgmentRecordedAfterTheSchedulerLookedStillCounts() async throws {
        try await putLegDay()
        let (token, plan) = try await plannedWindow("eli")
        clock.advance(by: 21 * 3600 + 60)
        // The scheduler claims the timer (no acknowledgment yet) and publishes it; the phone's
        // acknowledgment is recorded before a worker takes the message.
        try relay().relayDue()
        XCTAssertEqual(broker.routed[.fallbackCheck], 1)
        try await call("POST", "/v1/events", ["event": BuzzEvent.localScheduled, "subscriberId": "eli", "timestamp": RFC3339.format(clock.now),
                                              "properties": ["localId": plan.id, "messageId": plan.messageId, "device": token]],
                       device: "eli", expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "no fallback: the phone shows its own")
        let decided = try await summary(plan)
        let step = try XCTUnwrap((decided["steps"] as? [[String: Any]])?.last)
        XCTAssertEqual(step["status"] as? String, "scheduled on device")
    }

    func testACancelAfterTheFallbackDecisionChangesNothing() async throws {
        try await putLegDay()
        let (token, plan) = try await plannedWindow("bo")
        try passTheMoment()
        XCTAssertEqual(pushes(to: token, .alert).count, 1)
        try await call("POST", "/v1/events", ["event": "workout.completed", "subscriberId": "bo"], expect: 202)
        try workers.runUntilIdle()
        clock.advance(by: 11)
        try workers.runUntilIdle()
        let written = try await summary(plan)
        XCTAssertEqual(written["status"] as? String, "completed")
        XCTAssertEqual(pushes(to: token, .background).count, 1, "only the plan: no bk.cancel after the moment")
    }

    func testAnAcknowledgmentFromAPhoneThatLoggedOutIsNotSettled() async throws {
        try await putLegDay()
        let (token, plan) = try await plannedWindow("kim")
        let second = try await phone("kim")
        try await say(BuzzEvent.localScheduled, plan, subscriber: "kim", token: token)
        try await call("DELETE", "/v1/subscribers/kim/devices/\(token)", device: "kim", expect: 204)
        try passTheMoment()
        XCTAssertEqual(workers.context.metrics.counter("buzzkit_windows_settled_total"), 0)
        XCTAssertEqual(pushes(to: second, .alert).count, 1, "the fallback reaches the phone still signed in")
        XCTAssertEqual(pushes(to: token, .alert).count, 0)
    }

    func testNothingAfterTheSettledMomentUndoesIt() async throws {
        try await putLegDay()
        let (token, plan) = try await plannedWindow("lee")
        try await say(BuzzEvent.localScheduled, plan, subscriber: "lee", token: token)
        try passTheMoment()
        XCTAssertEqual(workers.context.metrics.counter("buzzkit_windows_settled_total"), 1)
        // Before the run is written: the phone lets go of the shown notification, and the
        // backend sends the cancelling event. The notification was shown at the moment.
        try await say(BuzzEvent.localReleased, plan, subscriber: "lee", token: token, reason: "removed")
        try await call("POST", "/v1/events", ["event": "workout.completed", "subscriberId": "lee"], expect: 202)
        try workers.runUntilIdle()
        clock.advance(by: 11)
        try workers.runUntilIdle()
        XCTAssertEqual(storedStatus(plan), "completed")
        let written = try await summary(plan)
        let step = try XCTUnwrap((written["steps"] as? [[String: Any]])?.last)
        XCTAssertEqual(step["status"] as? String, "scheduled on device")
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "no fallback")
        XCTAssertEqual(pushes(to: token, .background).count, 1, "only the plan: no bk.cancel after the moment")
    }

    /// The leg-day workflow with steps after its window: an hour later, a push asks how it was.
    func putLegDayWithAQuestionAnHourLater() async throws {
        try await call("PUT", "/v1/workflows/leg-day", [
            "key": "leg-day", "trigger": ["event": "workout.scheduled"],
            "steps": [["name": "morning-of", "waitUntil": ["time": "07:00", "timezone": "subscriber"]],
                      ["name": "nudge", "send": ["deliver": "local", "title": "Leg day", "body": "6:00 with Maya."]],
                      ["name": "later", "delay": ["hours": 1]],
                      ["name": "how-was-it", "send": ["deliver": "push", "title": "How was it?", "body": "Tell us."]]]
        ] as [String: Any], expect: 200)
    }

    func testAnAcknowledgedWindowWithStepsAfterItIsDecidedByTheWorker() async throws {
        try await putLegDayWithAQuestionAnHourLater()
        let (token, plan) = try await plannedWindow("jo")
        try await say(BuzzEvent.localScheduled, plan, subscriber: "jo", token: token)
        try passTheMoment()
        XCTAssertEqual(workers.context.metrics.counter("buzzkit_windows_settled_total"), 0, "the run goes on after the window")
        XCTAssertEqual(broker.routed[.fallbackCheck], 1)
        XCTAssertEqual(storedStatus(plan), "waiting", "waiting for the delay")
        clock.advance(by: 3_600)
        try workers.runUntilIdle()
        XCTAssertEqual(storedStatus(plan), "completed")
        XCTAssertEqual(pushes(to: token, .alert).count, 1, "the push step an hour later, and no fallback")
    }

    /// A window with steps after it is decided by the same decider as any other (its decision
    /// recorded beside the fallback it sends), and the run learns it at once and goes on; the
    /// timer again (a redelivery) finds the run past it and decides nothing.
    func testAWindowWithStepsAfterItThatNobodyAcknowledgedGetsOneFallbackAndTheRunGoesOn() async throws {
        try await putLegDayWithAQuestionAnHourLater()
        let (token, plan) = try await plannedWindow("jo")
        try passTheMoment()
        XCTAssertEqual(pushes(to: token, .alert).map(\.collapseId), ["\(plan.id)/fallback"])
        XCTAssertEqual(store.withState { $0.windowDecisions.values.map(\.localId) }, [plan.id], "recorded by the decider")
        XCTAssertEqual(store.withState { $0.filedDecisions.count }, 1, "filed at once: the run learnt it")
        XCTAssertEqual(storedStatus(plan), "waiting", "waiting for the push step an hour later")
        clock.advance(by: 11)
        try workers.runUntilIdle()
        XCTAssertEqual(storedStatus(plan), "waiting", "the completer leaves a run that goes on alone")
        let written = try await summary(plan)
        let step = try XCTUnwrap((written["steps"] as? [[String: Any]])?.first { $0["name"] as? String == "nudge" })
        XCTAssertEqual(step["status"] as? String, "fallback sent")
        let check = try XCTUnwrap(broker.published.last { $0.routingKey.hasSuffix("fallback-check") })
        try broker.publishAndWait([check])
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .alert).count, 1, "the timer again decides nothing")
        clock.advance(by: 3_600)
        try workers.runUntilIdle()
        XCTAssertEqual(storedStatus(plan), "completed")
        XCTAssertEqual(pushes(to: token, .alert).count, 2, "the fallback, then the push step an hour later")
    }
}
