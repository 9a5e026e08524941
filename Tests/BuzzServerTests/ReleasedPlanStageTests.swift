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

/// `$local.released` and per-device acknowledgments through the stages over the in-memory
/// store (the same rules as PostgreSQL; `IntegrationTests/ReleasedPlanIntegrationTests` runs
/// them on the real services).
final class ReleasedPlanStageTests: InMemoryPipelineTestCase {
    /// Starts a run for `subscriber` and delivers its plan; returns the plan.
    func plannedWindow(_ subscriber: String, devices: Int) throws -> (LocalPlan, [DeviceRecord]) {
        let phones = try pipeline.addSubscriber(subscriber, devices: devices)
        try pipeline.event("workout.scheduled", subscriber: subscriber)
        try pipeline.pump()
        let push = try XCTUnwrap(pipeline.pushes(to: phones[0]).first)
        return (try JSONDecoder().decode(SilentPlanPayload.self, from: push.payload).local, phones)
    }

    /// A `$local.scheduled` or `$local.released` from `device` with the device's own time.
    func say(_ name: String, _ plan: LocalPlan, subscriber: String, device: DeviceRecord?, at: Date) throws {
        var properties: [String: JSONValue] = ["localId": .string(plan.id), "messageId": .string(plan.messageId)]
        if let device { properties["device"] = .string(device.token.uppercased()) }  // any case; stored lowercased
        let event = BuzzEvent(id: UUID().uuidString, event: name, subscriberId: subscriber, properties: properties, timestamp: at)
        _ = try StageProcessor(context: pipeline.context).process([.event(.init(tenantId: pipeline.tenantId, event: event, dedupeKey: event.id))])
    }

    func decideAtTheMoment() throws -> RunSummary.LocalWindow {
        pipeline.clock.advance(by: 22 * 3600 + 60)
        try pipeline.pump()
        return try XCTUnwrap(pipeline.runs[0].state.summary.steps.last?.local)
    }

    func testAReleaseAfterTheAcknowledgmentGetsTheFallbackWithItsReason() throws {
        let (plan, phones) = try plannedWindow("maya", devices: 1)
        let t = pipeline.clock.now
        try say(BuzzEvent.localScheduled, plan, subscriber: "maya", device: phones[0], at: t)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.acknowledged, true)
        try say(BuzzEvent.localReleased, plan, subscriber: "maya", device: phones[0], at: t.addingTimeInterval(60))
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.acknowledged, false, "the summary says no device holds it")
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.acknowledgedAt, nil)
        let local = try decideAtTheMoment()
        XCTAssertEqual(local.fallback?.sent, true)
        XCTAssertEqual(local.fallback?.reason, "released by every device that acknowledged it")
        XCTAssertEqual(pipeline.pushes(to: phones[0]).filter { $0.pushType == .alert }.count, 1)
        XCTAssertEqual(pipeline.context.metrics.counter("buzzkit_releases_total"), 1)
    }

    func testOneDeviceOfTwoStillHoldingCountsAsAcknowledged() throws {
        let (plan, phones) = try plannedWindow("kim", devices: 2)
        let t = pipeline.clock.now
        try say(BuzzEvent.localScheduled, plan, subscriber: "kim", device: phones[0], at: t)
        try say(BuzzEvent.localScheduled, plan, subscriber: "kim", device: phones[1], at: t)
        try say(BuzzEvent.localReleased, plan, subscriber: "kim", device: phones[0], at: t.addingTimeInterval(5))
        let local = try decideAtTheMoment()
        XCTAssertEqual(local.acknowledged, true)
        XCTAssertEqual(local.fallback?.sent, false)
        XCTAssertTrue(pipeline.push.sent.allSatisfy { $0.pushType == .background })
    }

    func testOrderOfArrivalDoesNotMatterOnlyTheDevicesTimes() throws {
        let (plan, phones) = try plannedWindow("lee", devices: 1)
        let t = pipeline.clock.now
        // Released at t, put back and acknowledged again at t + 10 s; applied backwards and twice.
        try say(BuzzEvent.localScheduled, plan, subscriber: "lee", device: phones[0], at: t.addingTimeInterval(10))
        try say(BuzzEvent.localReleased, plan, subscriber: "lee", device: phones[0], at: t)
        try say(BuzzEvent.localScheduled, plan, subscriber: "lee", device: phones[0], at: t.addingTimeInterval(-5))
        try say(BuzzEvent.localReleased, plan, subscriber: "lee", device: phones[0], at: t)
        XCTAssertEqual(pipeline.context.metrics.counter("buzzkit_releases_total"), 1, "a repeat is not counted again")
        let local = try decideAtTheMoment()
        XCTAssertEqual(local.acknowledged, true)
        XCTAssertEqual(local.fallback?.sent, false)
    }

    func testAnAcknowledgmentFromADeviceNoLongerActiveDoesNotCount() throws {
        let (plan, phones) = try plannedWindow("ana", devices: 2)
        try say(BuzzEvent.localScheduled, plan, subscriber: "ana", device: phones[0], at: pipeline.clock.now)
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.local?.acknowledged, true)
        pipeline.store.withState { $0.devices[phones[0].id]?.active = false }  // logged out
        let local = try decideAtTheMoment()
        XCTAssertEqual(local.acknowledged, false)
        XCTAssertEqual(local.fallback?.reason, RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt)
        XCTAssertEqual(pipeline.pushes(to: phones[1]).filter { $0.pushType == .alert }.count, 1, "the fallback reaches the other phone")
        XCTAssertEqual(pipeline.pushes(to: phones[0]).filter { $0.pushType == .alert }.count, 0)
    }

    func testAcknowledgmentsWithoutADeviceCountAsBefore() throws {
        let (plan, _) = try plannedWindow("jo", devices: 1)
        try say(BuzzEvent.localScheduled, plan, subscriber: "jo", device: nil, at: pipeline.clock.now)
        XCTAssertEqual(try decideAtTheMoment().fallback?.sent, false)
    }

    func testAMalformedLocalIdIsPermanent() throws {
        _ = try pipeline.addSubscriber("ren", devices: 1)
        let event = BuzzEvent(event: BuzzEvent.localReleased, subscriberId: "ren",
                              properties: ["localId": "not-a-run/nudge", "messageId": "m"], timestamp: pipeline.clock.now)
        XCTAssertThrowsError(try StageProcessor(context: pipeline.context).process([.event(.init(tenantId: pipeline.tenantId, event: event, dedupeKey: nil))])) { error in
            XCTAssertEqual((error as? ServerError)?.outcome, .permanent)
            XCTAssertTrue("\(error)".contains("$local.released needs properties.localId"), "\(error)")
        }
    }

    func testTheCountingRule() {
        var window = RunState(workflow: try! WorkflowDefinition.parse(try! JSONDecoder().decode(JSONValue.self, from: Data(LegDay.text().utf8))),
                              trigger: BuzzEvent(event: "workout.scheduled", subscriberId: "u", timestamp: Date(timeIntervalSince1970: 0)),
                              context: RunContext(runId: "r", subscriberTimeZone: "UTC"))
        _ = window.handle(.start, now: Date(timeIntervalSince1970: 1_796_029_200))
        let local = window.steps.last!.local!
        let t = Date(timeIntervalSince1970: 1_796_029_300)
        func row(_ device: String, scheduled: Date?, released: Date?, counts: Bool = true) -> PlanHolding {
            PlanHolding(localId: local.localId, device: device, messageId: local.plan.messageId, acknowledgedAt: t,
                        scheduledAt: scheduled, releasedAt: released, deviceCounts: counts)
        }
        func input(_ rows: [PlanHolding]) -> RunInput? { PlanHolding.standing(of: local, holdings: rows)?.0 }
        let released = RunInput.released(localId: local.localId, messageId: local.plan.messageId, reason: RunSummary.LocalWindow.Fallback.releasedByEveryDevice)
        let gone = RunInput.released(localId: local.localId, messageId: local.plan.messageId, reason: RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt)
        let held = RunInput.acknowledged(localId: local.localId, messageId: local.plan.messageId)
        XCTAssertNil(input([]))
        XCTAssertEqual(input([row("a", scheduled: t, released: nil)]), held)
        XCTAssertEqual(input([row("a", scheduled: t, released: t)]), released, "a release at the same time is a release")
        XCTAssertEqual(input([row("a", scheduled: t, released: t.addingTimeInterval(-1))]), held, "put back after the release")
        XCTAssertEqual(input([row("a", scheduled: nil, released: t)]), released, "the release came first; its acknowledgment is on the way")
        XCTAssertEqual(input([row("a", scheduled: t, released: t + 1), row("b", scheduled: t, released: nil)]), held)
        XCTAssertEqual(input([row("a", scheduled: t, released: nil, counts: false)]), gone, "logged out")
        XCTAssertEqual(input([row("a", scheduled: t, released: t + 1), row("b", scheduled: t, released: nil, counts: false)]), gone)
        XCTAssertEqual(input([row("", scheduled: t, released: nil)]), held, "clients that name no device count as before")
        var other = row("a", scheduled: t, released: nil)
        other.messageId = "another-message"
        XCTAssertNil(input([other]), "another plan's message does not count")
    }
}

final class ReleasedPlanInputTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_796_029_200)

    func testLocalReleasedIsAnSDKEventWithTheAcknowledgmentsFields() throws {
        let token = String(repeating: "ab", count: 32)
        let localId = "0f8fad5b-d9cb-469f-a165-70867728950e/nudge"
        XCTAssertThrowsError(try EventInput.parse(["event": "$local.released", "subscriberId": "u",
                                                   "properties": ["localId": "r/s", "messageId": "m"]], path: "", now: now)) { error in
            XCTAssertEqual((error as? ServerError)?.field, "properties.localId", "a local id names its run's UUID")
        }
        let event = try EventInput.parse(["event": "$local.released", "subscriberId": "u",
                                          "properties": ["localId": .string(localId), "messageId": "m", "device": .string(token)]], path: "", now: now)
        XCTAssertEqual(event.event, BuzzEvent.localReleased)
        XCTAssertThrowsError(try EventInput.parse(["event": "$local.released", "subscriberId": "u", "properties": ["localId": .string(localId)]], path: "", now: now)) { error in
            XCTAssertEqual((error as? ServerError)?.field, "properties.messageId")
        }
        for bad: JSONValue in [3, "not hex", .string(String(repeating: "a", count: 202))] {
            XCTAssertThrowsError(try EventInput.parse(["event": "$local.scheduled", "subscriberId": "u",
                                                       "properties": ["localId": .string(localId), "messageId": "m", "device": bad]], path: "events[1]", now: now)) { error in
                XCTAssertEqual((error as? ServerError)?.field, "events[1].properties.device")
            }
        }
        XCTAssertNoThrow(try EventInput.parse(["event": "$local.scheduled", "subscriberId": "u",
                                               "properties": ["localId": .string(localId), "messageId": "m", "device": .string(token.uppercased())]], path: "", now: now))
        XCTAssertThrowsError(try EventInput.parse(["event": "$local.other", "subscriberId": "u"], path: "", now: now)) { error in
            XCTAssertTrue("\(error)".contains("$local.released"), "\(error)")
        }
    }

    func testReleasesAreRoutedToAckIngestLikeAcknowledgments() {
        XCTAssertEqual(Topology.ackIngestKeys, ["*.$local.scheduled", "*.$local.released"])
        XCTAssertEqual(Topology.routingKey(tenantId: "t_1", event: BuzzEvent.localReleased), "t_1.$local.released")
    }
}
