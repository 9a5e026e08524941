import BuzzEngine
import BuzzKitWire
import Foundation
import PushDelivery
import BuzzTesting
import XCTest
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore

final class PipelineStageTests: InMemoryPipelineTestCase {
    func plan(_ push: PushNotification) throws -> LocalPlan {
        try JSONDecoder().decode(SilentPlanPayload.self, from: push.payload).local
    }

    func testEventStartsARunAndThePlanReachesEveryDevice() throws {
        let devices = try pipeline.addSubscriber("maya", devices: 2)
        try pipeline.event("workout.scheduled", subscriber: "maya")
        XCTAssertEqual(pipeline.runs.count, 1)
        try pipeline.pump()
        for device in devices {
            XCTAssertEqual(pipeline.pushes(to: device).count, 1)
            XCTAssertEqual(pipeline.pushes(to: device).first?.pushType, .background)
        }
        let local = try XCTUnwrap(pipeline.runs[0].state.summary.steps.last?.local)
        XCTAssertEqual(local.planSentTo, 2)
        // 09:00Z on 2026-11-30 in UTC: the next 07:00 is tomorrow.
        XCTAssertEqual(local.fireAt, FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0))
    }

    /// The trigger stage's worker pushes a new run's plan itself, right after the transaction
    /// that starts the run: the phone has it before any queue runs, one delivery row records
    /// it, no outbox row is left for `plan-dispatch`, and the run's summary counts the device.
    func testTheTriggerStagePushesANewRunsPlanItselfAndRecordsItOnce() throws {
        let device = try pipeline.addSubscriber("maya", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "maya")
        XCTAssertEqual(pipeline.pushes(to: device).map(\.pushType), [.background], "pushed before any queue ran")
        let deliveries = pipeline.store.withState { Array($0.deliveries.values) }
        XCTAssertEqual(deliveries.map(\.kind), ["plan"])
        XCTAssertEqual(deliveries.first?.outcome?.status, "sent")
        XCTAssertTrue(pipeline.store.withState { $0.outbox.allSatisfy { $0.message.availableAt != nil } }, "only the moment's timer is left")
        try pipeline.pump()
        XCTAssertFalse(pipeline.delivered.contains { if case .sendPlan = $0 { return true } else { return false } }, "no plan message to plan-dispatch")
        XCTAssertEqual(pipeline.pushes(to: device).count, 1)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.planSentTo, 1)
    }

    /// A cancel handled between a trigger batch's commit and the sends its worker makes right
    /// after it wins: the plan is not pushed, and its outbox row is gone, so no queue sends it
    /// later either.
    func testACancelBetweenTheTriggersCommitAndItsSendsWins() throws {
        let device = try pipeline.addSubscriber("maya", devices: 1)[0]
        let item = EventProcessor.Item(tenantId: pipeline.tenantId, event: BuzzEvent(event: "workout.scheduled", subscriberId: "maya",
                                                                                      timestamp: pipeline.clock.now), dedupeKey: "e-7")
        let committed = try pipeline.store.transaction { try EventProcessor(context: pipeline.context).process([item], tx: $0) }
        XCTAssertTrue(pipeline.pushes(to: device).isEmpty, "nothing is pushed inside the transaction")
        XCTAssertTrue(committed.contains { !$0.sendAfterCommit.isEmpty }, "the plan is kept for after the commit")
        try pipeline.event("workout.completed", subscriber: "maya")
        XCTAssertEqual(pipeline.runs[0].state.status, .cancelled)
        let left = SendProcessor(context: pipeline.context).sendAfterCommit(committed)
        XCTAssertTrue(pipeline.pushes(to: device).isEmpty, "the cancelled run's plan was not pushed")
        XCTAssertTrue(left.allSatisfy(\.sendAfterCommit.isEmpty), "nothing left for plan-dispatch")
        XCTAssertFalse(pipeline.store.withState { $0.outbox.contains { $0.message.messageId.contains("plan:") } }, "the plan's row went with the attempt")
        try pipeline.pump()
        XCTAssertTrue(pipeline.pushes(to: device).isEmpty)
    }

    /// The database goes away between a trigger batch's commit and the sends its worker makes
    /// right after it, in a process that lives on: nothing is pushed then, the rows stay in the
    /// outbox, and `plan-dispatch` sends the plan from them later, once, recorded once.
    func testWhenTheSendsAfterTheCommitFailPlanDispatchSendsThePlanOnce() throws {
        let device = try pipeline.addSubscriber("maya", devices: 1)[0]
        let item = EventProcessor.Item(tenantId: pipeline.tenantId, event: BuzzEvent(event: "workout.scheduled", subscriberId: "maya",
                                                                                      timestamp: pipeline.clock.now), dedupeKey: "e-8")
        let committed = try pipeline.store.transaction { try EventProcessor(context: pipeline.context).process([item], tx: $0) }
        pipeline.store.failNextTransactions(1)
        let left = SendProcessor(context: pipeline.context).sendAfterCommit(committed)
        XCTAssertTrue(pipeline.pushes(to: device).isEmpty, "nothing pushed while the database was away")
        XCTAssertTrue(left.contains { !$0.sendAfterCommit.isEmpty }, "the rows go back to the relay")
        XCTAssertTrue(pipeline.store.withState { $0.deliveries.isEmpty })
        try pipeline.pump()
        XCTAssertTrue(pipeline.delivered.contains { if case .sendPlan = $0 { return true } else { return false } }, "plan-dispatch sent it")
        XCTAssertEqual(pipeline.pushes(to: device).map(\.pushType), [.background])
        XCTAssertEqual(pipeline.store.withState { $0.deliveries.values.map(\.kind) }, ["plan"])
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.planSentTo, 1)
    }

    /// A window whose moment had passed when its event was handled is decided at once: the
    /// trigger stage sends the fallback itself, one alert recorded once, with no message to
    /// `fallback-check`; the run ends with the fallback in its summary.
    func testAWindowWhoseMomentHadPassedGetsItsFallbackFromTheTriggerStageAtOnce() throws {
        try pipeline.addWorkflow("""
            { "key": "reminder", "trigger": { "event": "reminder.set" },
              "steps": [ { "name": "wait", "waitUntil": { "at": "{{trigger.at}}" } },
                         { "name": "nudge", "send": { "deliver": "local", "title": "Now", "body": "It is time." } } ] }
            """)
        let device = try pipeline.addSubscriber("maya", devices: 1)[0]
        try pipeline.event("reminder.set", subscriber: "maya", properties: ["at": .string(RFC3339.format(pipeline.clock.now.addingTimeInterval(-5)))])
        XCTAssertEqual(pipeline.pushes(to: device).map(\.pushType), [.alert], "the fallback, before any queue ran")
        XCTAssertEqual(pipeline.store.withState { $0.deliveries.values.map(\.kind) }, ["fallback"])
        try pipeline.pump()
        XCTAssertFalse(pipeline.delivered.contains { if case .sendAlert = $0 { return true } else { return false } }, "no alert message")
        XCTAssertEqual(pipeline.pushes(to: device).count, 1)
        XCTAssertEqual(pipeline.runs[0].state.status, .completed)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.status, .fallbackSent)
    }

    func testAckBeforeTheMomentMeansNoFallback() throws {
        let device = try pipeline.addSubscriber("maya", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "maya")
        try pipeline.pump()
        let p = try plan(try XCTUnwrap(pipeline.pushes(to: device).first))
        let acknowledgedAt = pipeline.clock.now
        try pipeline.event(BuzzEvent.localScheduled, subscriber: "maya", properties: ["localId": .string(p.id), "messageId": .string(p.messageId)])
        // The summary shows the acknowledgment at once, with its own time.
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.acknowledged, true)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.acknowledgedAt, acknowledgedAt)
        pipeline.clock.advance(by: 22 * 3600 + 60)
        try pipeline.pump()
        XCTAssertEqual(pipeline.pushes(to: device).count, 1, "only the plan")
        XCTAssertEqual(pipeline.runs[0].state.status, .completed)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.status, .scheduledOnDevice)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.acknowledgedAt, acknowledgedAt, "folded in with the time it was recorded")
    }

    func testNoAckSendsOneFallbackEvenWhenTheSendIsRedelivered() throws {
        let device = try pipeline.addSubscriber("sam", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "sam")
        try pipeline.pump()
        pipeline.clock.advance(by: 22 * 3600 + 60)
        try pipeline.pump()
        let alerts = pipeline.pushes(to: device).filter { $0.pushType == .alert }
        XCTAssertEqual(alerts.count, 1)
        let localId = "\(pipeline.runs[0].id.uuidString.lowercased())/nudge"
        XCTAssertEqual(alerts.first?.collapseId, "\(localId)/fallback")
        // The fallback is sent by the stage that decided it: no separate send message.
        XCTAssertFalse(pipeline.delivered.contains { if case .sendAlert = $0 { return true } else { return false } })
        // The same fallback check again (a redelivery, twice in one batch) sends nothing.
        let check = try XCTUnwrap(pipeline.delivered.first {
            if case .timer(_, _, let timer, _) = $0 { return timer.purpose == .localWindowDue } else { return false }
        })
        _ = try StageProcessor(context: pipeline.context).process([.message(check), .message(check)])
        XCTAssertEqual(pipeline.pushes(to: device).filter { $0.pushType == .alert }.count, 1)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.fallback?.sent, true)
    }

    /// A window decided outside its run, whose timer comes back alone (the broker redelivers
    /// it, or an outage's copy is republished) before the window completer wrote the decision
    /// into the run: the decision is not made again, so the person gets one fallback, not two.
    func testARedeliveredTimerOfAWindowDecidedOutsideItsRunSendsNoSecondFallback() throws {
        let pipeline = InMemoryPipeline()
        try pipeline.addWorkflow(LegDay.text())
        let sam = try pipeline.addSubscriber("sam", devices: 1)[0]
        let kim = try pipeline.addSubscriber("kim", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "sam")
        try pipeline.event("workout.scheduled", subscriber: "kim")
        try pipeline.pump()
        pipeline.clock.advance(by: 22 * 3600 + 60)
        try pipeline.pump()
        XCTAssertEqual(pipeline.context.metrics.counter("buzzkit_windows_decided_outside_run_total"), 2)
        XCTAssertEqual(pipeline.pushes(to: sam).filter { $0.pushType == .alert }.count, 1)
        let samsRun = try XCTUnwrap(pipeline.runs.first { $0.subscriberId == "sam" }).id
        let check = try XCTUnwrap(pipeline.delivered.first {
            if case .timer(_, let runId, let timer, _) = $0 { return runId == samsRun && timer.purpose == .localWindowDue } else { return false }
        })
        _ = try StageProcessor(context: pipeline.context).process([.message(check)])
        XCTAssertEqual(pipeline.pushes(to: sam).filter { $0.pushType == .alert }.count, 1, "no second fallback")
        XCTAssertEqual(pipeline.pushes(to: kim).filter { $0.pushType == .alert }.count, 1)
        XCTAssertEqual(pipeline.runs.first { $0.id == samsRun }?.state.summary.steps.last?.local?.fallback?.reason,
                       RunSummary.LocalWindow.Fallback.noConfirmation)
    }

    func testUnregisteredDeviceIsDeactivatedAndNeverSentToAgain() throws {
        let devices = try pipeline.addSubscriber("ida", devices: 2)
        pipeline.push.setOutcome(.deviceUnregistered(reason: "Unregistered", since: nil), forToken: devices[0].token)
        try pipeline.event("workout.scheduled", subscriber: "ida")
        try pipeline.pump()
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.planSentTo, 1)
        pipeline.clock.advance(by: 22 * 3600 + 60)
        try pipeline.pump()
        XCTAssertEqual(pipeline.pushes(to: devices[0]).count, 1, "only the first attempt, before it was known dead")
        XCTAssertEqual(pipeline.pushes(to: devices[1]).filter { $0.pushType == .alert }.count, 1)
        XCTAssertEqual(pipeline.store.withState { $0.deactivated[devices[0].id]?.reason }, "Unregistered")
    }

    func testDuplicateEventIdStartsOneRun() throws {
        try pipeline.addSubscriber("kim", devices: 1)
        try pipeline.event("workout.scheduled", subscriber: "kim", id: "evt-1")
        try pipeline.event("workout.scheduled", subscriber: "kim", id: "evt-1")
        XCTAssertEqual(pipeline.runs.count, 1)
    }

    func testCancelEventCancelsAndSendsBkCancelToPlanRecipients() throws {
        let device = try pipeline.addSubscriber("ana", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "ana")
        try pipeline.pump()
        try pipeline.event("workout.completed", subscriber: "ana")
        try pipeline.pump()
        XCTAssertEqual(pipeline.runs[0].state.status, .cancelled)
        XCTAssertEqual(pipeline.pushes(to: device).count, 2)
        XCTAssertTrue(String(decoding: pipeline.pushes(to: device)[1].payload, as: UTF8.self).contains("bk.cancel"))
        XCTAssertTrue(pipeline.store.withState { $0.outbox.isEmpty }, "the fallback timer was deleted")
        pipeline.clock.advance(by: 22 * 3600 + 60)
        try pipeline.pump()
        XCTAssertEqual(pipeline.pushes(to: device).count, 2, "nothing after the cancel")
    }

    /// A plan message held up (a worker holding it through an outage, a slow batch) is handled
    /// after its run was cancelled and after the run's `bk.cancel`, which found no device that
    /// had the plan. Sending the plan now would leave it on the phone, shown after the cancel.
    func testAPlanHeldUpPastItsRunsCancelIsNotSent() throws {
        let pipeline = InMemoryPipeline(triggerSends: false)
        try pipeline.addWorkflow(LegDay.text())
        let device = try pipeline.addSubscriber("ana", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "ana")
        let now = pipeline.clock.now
        let held = pipeline.store.withState { state -> [OutboxMessage] in
            let ready = state.outbox.filter { ($0.message.availableAt ?? .distantPast) <= now }
            let ids = Set(ready.map(\.id))
            state.outbox.removeAll { ids.contains($0.id) }
            return ready.map(\.message)
        }
        XCTAssertFalse(held.isEmpty, "the plan's message")
        try pipeline.event("workout.completed", subscriber: "ana")
        try pipeline.pump()
        XCTAssertEqual(pipeline.runs[0].state.status, .cancelled)
        XCTAssertTrue(pipeline.pushes(to: device).isEmpty, "no plan was out, so the cancel had no one to tell")
        for message in held {
            for decoded in try PipelineMessage.decodeAll(message.body) {
                _ = try StageProcessor(context: pipeline.context).process([.message(decoded)])
            }
        }
        XCTAssertTrue(pipeline.pushes(to: device).isEmpty, "the held-up plan was not sent after the cancel")
        XCTAssertEqual(pipeline.context.metrics.counter("buzzkit_plans_skipped_total", ["reason": "cancelled"]), 1)
    }

    func testBkCancelSkipsAPlanRecipientNowRegisteredToAnotherSubscriber() throws {
        let devices = try pipeline.addSubscriber("ana", devices: 2)
        try pipeline.event("workout.scheduled", subscriber: "ana")
        try pipeline.pump()
        XCTAssertEqual(devices.map { pipeline.pushes(to: $0).count }, [1, 1])
        // The phone of the first device logs ana out and registers for bo (same token).
        pipeline.store.withState { $0.devices[devices[0].id]?.subscriberId = "bo" }
        try pipeline.event("workout.completed", subscriber: "ana")
        try pipeline.pump()
        XCTAssertEqual(pipeline.runs[0].state.status, .cancelled)
        XCTAssertEqual(devices.map { pipeline.pushes(to: $0).count }, [1, 2], "the cancel of ana's run goes to ana's devices only")
    }

    func testUnknownTenantIsAPermanentError() throws {
        let item = EventProcessor.Item(tenantId: "t_nobody", event: BuzzEvent(event: "x", subscriberId: "s", timestamp: Date()), dedupeKey: nil)
        XCTAssertThrowsError(try StageProcessor(context: pipeline.context).process([.event(item)])) { error in
            XCTAssertEqual((error as? ServerError)?.outcome, .permanent)
        }
    }

    func testFailedTransactionLeavesNothingBehind() throws {
        try pipeline.addSubscriber("lee", devices: 1)
        let bad = EventProcessor.Item(tenantId: "t_nobody", event: BuzzEvent(event: "x", subscriberId: "s", timestamp: Date()), dedupeKey: nil)
        let good = EventProcessor.Item(tenantId: pipeline.tenantId, event: BuzzEvent(event: "workout.scheduled", subscriberId: "lee", timestamp: Date()), dedupeKey: "e1")
        XCTAssertThrowsError(try StageProcessor(context: pipeline.context).process([.event(good), .event(bad)]))
        XCTAssertEqual(pipeline.runs.count, 0, "the whole batch rolled back")
        XCTAssertTrue(pipeline.store.withState { $0.processedEvents.isEmpty })
    }
}

final class EventBatchTests: XCTestCase {
    func testACancelInTheSameBatchAsItsTriggerCancelsTheNewRun() throws {
        let pipeline = InMemoryPipeline()
        try pipeline.addWorkflow(LegDay.text())
        try pipeline.addSubscriber("quick", devices: 1)
        let now = pipeline.clock.now
        let items = [
            EventProcessor.Item(tenantId: pipeline.tenantId, event: BuzzEvent(event: "workout.scheduled", subscriberId: "quick", timestamp: now), dedupeKey: "a"),
            EventProcessor.Item(tenantId: pipeline.tenantId, event: BuzzEvent(event: "workout.completed", subscriberId: "quick", timestamp: now), dedupeKey: "b"),
        ]
        _ = try StageProcessor(context: pipeline.context).process(items.map { .event($0) })
        XCTAssertEqual(pipeline.runs.map(\.state.status), [.cancelled])
        XCTAssertTrue(pipeline.push.sent.isEmpty, "the cancelled run's plan was not pushed")
    }
}

/// Pipeline messages travel in their synthesized `Codable` form, written and read by hand:
/// the two must agree on every kind of message, both ways.
final class PipelineMessageFormTests: XCTestCase {
    func testEveryKindOfMessageHasTheCodableForm() throws {
        // Plans travel as messages when the trigger stage leaves them to `plan-dispatch`.
        let pipeline = InMemoryPipeline(triggerSends: false)
        try pipeline.addWorkflow(LegDay.text())
        try pipeline.addWorkflow("""
            { "key": "nudge-now", "trigger": { "event": "nudge" },
              "steps": [ { "name": "now", "send": { "deliver": "push", "title": "Go", "body": "Now \\"quoted\\" é 🏋️", "data": {"n": 1.5, "k": [true, null]} } } ] }
            """)
        try pipeline.addSubscriber("maya", devices: 2)
        try pipeline.addSubscriber("sam", devices: 1)
        try pipeline.event("workout.scheduled", subscriber: "maya")
        try pipeline.event("workout.scheduled", subscriber: "sam")
        try pipeline.event("nudge", subscriber: "maya")
        try pipeline.pump()
        try pipeline.event("workout.completed", subscriber: "maya")
        try pipeline.pump()
        pipeline.clock.advance(by: 22 * 3600 + 60)
        try pipeline.pump()
        var kinds: Set<String> = []
        for message in pipeline.delivered {
            let fast = try message.encoded()
            let codable = try JSONEncoder().encode(message)
            XCTAssertEqual(try JSONParser.parse(fast), try JSONParser.parse(codable))
            XCTAssertEqual(try PipelineMessage.decode(codable), message)
            XCTAssertEqual(try JSONDecoder().decode(PipelineMessage.self, from: fast), message)
            kinds.insert(String(describing: message).prefix { $0 != "(" }.description)
        }
        XCTAssertEqual(kinds, ["timer", "sendPlan", "sendAlert", "sendCancel"])
        // A window's timer names its window (fallback-check decides it without the run).
        XCTAssertTrue(pipeline.delivered.contains { if case .timer(_, _, _, let window?) = $0 { return window.subscriberId == "sam" } else { return false } })
        XCTAssertThrowsError(try PipelineMessage.decode(Data(#"{"sendPlan":{"tenantId":"t","runId":"nope"}}"#.utf8))) { error in
            XCTAssertEqual("\(error)", "sendPlan.runId: \"nope\" is not a UUID")
        }
    }
}
