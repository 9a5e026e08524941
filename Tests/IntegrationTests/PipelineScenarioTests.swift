import AMQPClient
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PushDelivery
import XCTest

/// The seed scenarios over the real queues: event → run → plan → ack / fallback → summary.
final class PipelineScenarioTests: XCTestCase {
    var harness: PipelineHarness!

    override func setUpWithError() throws {
        harness = try PipelineHarness()
        try harness.putLegDay()
    }

    override func tearDown() {
        harness?.shutdown()
    }

    func plan(in notification: PushNotification) throws -> LocalPlan {
        try JSONDecoder().decode(SilentPlanPayload.self, from: notification.payload).local
    }

    func testPlanGoesOutWhenTheWaitBeginsAndAnAckPreventsTheFallback() throws {
        let tokens = try harness.subscriber("maya")
        let moment = Date().addingTimeInterval(3)
        try harness.scheduleWorkout("maya", at: moment)

        // The plan reaches the device as a silent push as soon as the wait begins.
        XCTAssertTrue(TestServices.eventually(timeout: 10) { self.harness.pushes(to: tokens[0]).count == 1 })
        let push = try XCTUnwrap(harness.pushes(to: tokens[0]).first)
        XCTAssertEqual(push.pushType, .background)
        XCTAssertEqual(push.priority, 5)
        let stored = try XCTUnwrap(RFC3339.parse(RFC3339.format(moment)), "the moment as the event carried it")
        XCTAssertEqual(push.expiration.map { Int($0.timeIntervalSince1970) }, Int(stored.timeIntervalSince1970.rounded(.up)))
        let plan = try plan(in: push)
        XCTAssertEqual(plan.title, "Leg day")
        XCTAssertEqual(plan.cancelOn, ["workout.completed"], "only rules without where are decided on the device")
        let run = try XCTUnwrap(try harness.waitForRun { $0.state.summary.steps.last?.local?.planSentTo == 1 })
        XCTAssertEqual(plan.id, "\(run.id.uuidString.lowercased())/nudge")
        XCTAssertEqual(run.state.status, .waiting)

        try harness.acknowledge("maya", localId: plan.id, messageId: plan.messageId)
        let done = try XCTUnwrap(try harness.waitForRun { $0.state.status == .completed })
        let local = try XCTUnwrap(done.state.summary.steps.last?.local)
        XCTAssertTrue(local.acknowledged)
        XCTAssertNotNil(local.acknowledgedAt)
        XCTAssertEqual(local.fallback?.sent, false)
        XCTAssertEqual(done.state.summary.steps.last?.status, .scheduledOnDevice)
        XCTAssertEqual(harness.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 0, "no fallback after an ack")
    }

    func testNoAckSendsTheFallbackAtTheMomentWithItsIdempotencyKey() throws {
        let tokens = try harness.subscriber("sam", devices: 2)
        let moment = Date().addingTimeInterval(2)
        try harness.scheduleWorkout("sam", at: moment)
        let done = try XCTUnwrap(try harness.waitForRun(timeout: 15) { $0.state.status == .completed })
        XCTAssertTrue(TestServices.eventually(timeout: 5) { tokens.allSatisfy { self.harness.pushes(to: $0).contains { $0.pushType == .alert } } })
        let localId = "\(done.id.uuidString.lowercased())/nudge"
        for token in tokens {
            let alerts = harness.pushes(to: token).filter { $0.pushType == .alert }
            XCTAssertEqual(alerts.count, 1, "exactly one fallback per device")
            XCTAssertEqual(alerts.first?.collapseId, "\(localId)/fallback")
            XCTAssertEqual(alerts.first?.priority, 10)
        }
        let fallback = try XCTUnwrap(done.state.summary.steps.last?.local?.fallback)
        XCTAssertTrue(fallback.sent)
        XCTAssertEqual(fallback.idempotencyKey, "\(localId)/fallback")
        XCTAssertEqual(fallback.reason, "no device confirmed the schedule")
        // Sent at the moment, not before.
        let sentAt = try harness.pool.withConnection { db in
            try db.query("SELECT min(created_at) AS at FROM deliveries WHERE kind = 'fallback'")[0].decode("at", as: Date.self)
        }
        XCTAssertGreaterThanOrEqual(sentAt.timeIntervalSince(moment), 0)
    }

    func testOneAcknowledgedDeviceOfTwoCountsForTheSubscriber() throws {
        let tokens = try harness.subscriber("kim", devices: 2)
        try harness.scheduleWorkout("kim", at: Date().addingTimeInterval(3))
        XCTAssertTrue(TestServices.eventually(timeout: 10) { tokens.allSatisfy { self.harness.pushes(to: $0).count == 1 } })
        let plan = try plan(in: harness.pushes(to: tokens[1])[0])
        try harness.acknowledge("kim", localId: plan.id, messageId: plan.messageId)
        let done = try XCTUnwrap(try harness.waitForRun { $0.state.status == .completed })
        XCTAssertEqual(done.state.summary.steps.last?.local?.planSentTo, 2)
        XCTAssertTrue(done.state.summary.steps.last?.local?.acknowledged == true)
        XCTAssertTrue(harness.push.sent.allSatisfy { $0.pushType == .background }, "no fallback to either device")
    }

    func testDeviceDecidableCancelEventCancelsTheRunAndSendsBkCancel() throws {
        let tokens = try harness.subscriber("ana")
        try harness.scheduleWorkout("ana", at: Date().addingTimeInterval(4))
        _ = try XCTUnwrap(try harness.waitForRun { $0.state.summary.steps.last?.local?.planSentTo == 1 })
        try harness.publish(BuzzEvent(event: "workout.completed", subscriberId: "ana", timestamp: Date()))
        let cancelled = try XCTUnwrap(try harness.waitForRun { $0.state.status == .cancelled })
        XCTAssertEqual(cancelled.state.summary.cancelled?.by, .event)
        XCTAssertEqual(cancelled.state.summary.cancelled?.event, "workout.completed")
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.harness.pushes(to: tokens[0]).count == 2 })
        let cancel = try JSONDecoder().decode(CancelPayload.self, from: harness.pushes(to: tokens[0])[1].payload)
        XCTAssertEqual(cancel.id, cancelled.id.uuidString.lowercased())
        Thread.sleep(forTimeInterval: 5)
        XCTAssertFalse(harness.push.sent.contains { $0.pushType == .alert }, "nothing is sent after a cancel")
    }

    func testWhereRuleCancelsOnlyTheMatchingRun() throws {
        try harness.subscriber("lee")
        try harness.scheduleWorkout("lee", at: Date().addingTimeInterval(60), workoutId: "w1")
        try harness.scheduleWorkout("lee", at: Date().addingTimeInterval(60), workoutId: "w2")
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try self.harness.runs().filter { $0.state.status == .waiting }.count == 2 })
        try harness.publish(BuzzEvent(event: "workout.moved", subscriberId: "lee", properties: ["workoutId": "w2"], timestamp: Date()))
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try self.harness.runs().contains { $0.state.status == .cancelled } })
        let runs = try harness.runs()
        XCTAssertEqual(runs.first { $0.state.trigger.properties["workoutId"] == "w2" }?.state.status, .cancelled)
        XCTAssertEqual(runs.first { $0.state.trigger.properties["workoutId"] == "w1" }?.state.status, .waiting)
    }

    func testCentralCancelSendsBkCancelAndDeletesTheTimer() throws {
        let tokens = try harness.subscriber("jo")
        try harness.scheduleWorkout("jo", at: Date().addingTimeInterval(60))
        let run = try XCTUnwrap(try harness.waitForRun { $0.state.summary.steps.last?.local?.planSentTo == 1 })
        let after = try XCTUnwrap(try harness.commands.cancel(tenantId: harness.tenantId, runId: run.id))
        XCTAssertEqual(after.state.status, .cancelled)
        XCTAssertEqual(after.state.summary.cancelled?.by, .api)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.harness.pushes(to: tokens[0]).count == 2 })
        let timers = try harness.pool.withConnection { try $0.query("SELECT count(*) AS n FROM outbox WHERE run_id = \(run.id)")[0].decode("n", as: Int.self) }
        XCTAssertEqual(timers, 0, "the fallback-check timer was deleted")
        XCTAssertNil(try harness.commands.cancel(tenantId: "t_someoneelse", runId: run.id), "another tenant cannot cancel it")
    }

    func testQuietHoursShiftThePlannedMoment() throws {
        // Quiet hours from ten minutes ago to half an hour ahead: a moment 10 s away moves to their end.
        let tokens = try harness.subscriber("ren", timezone: "UTC")
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let now = Date()
        let qStart = utc.dateComponents([.hour, .minute], from: now.addingTimeInterval(-600))
        let qEnd = utc.dateComponents([.hour, .minute], from: now.addingTimeInterval(1800))
        try harness.directory.updateSettings(tenantId: harness.tenantId,
                                             quietHours: try QuietHours.parse(String(format: "%02d:%02d-%02d:%02d", qStart.hour!, qStart.minute!, qEnd.hour!, qEnd.minute!)),
                                             defaultTimezone: "UTC")
        try harness.scheduleWorkout("ren", at: now.addingTimeInterval(10))
        XCTAssertTrue(TestServices.eventually(timeout: 10) { self.harness.pushes(to: tokens[0]).count == 1 })
        let plan = try plan(in: harness.pushes(to: tokens[0])[0])
        XCTAssertEqual(plan.fireAt.hour, qEnd.hour)
        XCTAssertEqual(plan.fireAt.minute, qEnd.minute)
        let run = try XCTUnwrap(try harness.waitForRun { $0.state.summary.steps.last?.local != nil })
        XCTAssertEqual(run.state.summary.steps.last?.local?.shiftedByQuietHours, true)
    }

    func testDryRunRecordsEverythingAndSendsNothing() throws {
        try harness.subscriber("dee")
        let moment = Date().addingTimeInterval(2)
        let run = try XCTUnwrap(try harness.commands.trigger(tenantId: harness.tenantId, workflowKey: "leg-day", subscriberId: "dee",
                                                          properties: ["at": .string(RFC3339.format(moment)), "workoutId": "w9"], dryRun: true))
        XCTAssertTrue(run.state.summary.dryRun)
        let local = try XCTUnwrap(run.state.summary.steps.last?.local)
        XCTAssertEqual(local.moment.timeIntervalSince1970, moment.timeIntervalSince1970, accuracy: 0.001)
        XCTAssertEqual(local.planSentTo, 0)
        let done = try XCTUnwrap(try harness.waitForRun(timeout: 15) { $0.state.status == .completed })
        XCTAssertEqual(done.state.summary.steps.last?.local?.fallback?.sent, false)
        XCTAssertTrue(harness.push.sent.isEmpty, "a dry run never sends")
        XCTAssertNil(try harness.commands.trigger(tenantId: harness.tenantId, workflowKey: "nope", subscriberId: "dee", properties: [:], dryRun: true))
    }
}
