import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A `bk.local` plan becomes a floating calendar request and is acknowledged at once.
final class PlanSchedulingTests: XCTestCase {
    func testPlanBecomesACalendarRequestKeepingMessageDeepLinkAndData() async throws {
        let phone = try await TestPhone()
        let fireAt = FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0)
        let outcome = await phone.client.handleRemoteNotification(
            payload: Payloads.plan("run-1/nudge", messageId: "m-1", fireAt: fireAt, cancelOn: ["workout.completed"]))
        XCTAssertEqual(outcome, .newData)
        let pending = await phone.center.pendingRequests()
        XCTAssertEqual(pending.count, 1)
        let request = try XCTUnwrap(pending.first)
        XCTAssertEqual(request.id, "run-1/nudge")
        XCTAssertEqual(request.fireAt, fireAt)
        XCTAssertEqual(request.title, "Leg day")
        XCTAssertEqual(request.body, "6:00 with Maya.")
        XCTAssertEqual(request.message, NotificationMessage(messageId: "m-1", localId: "run-1/nudge",
                                                            deepLink: "gym://workouts/legs", data: ["workoutId": "w1"]))
    }

    func testAcknowledgmentIsTrackedAndFlushedImmediately() async throws {
        let phone = try await TestPhone { $0.deviceToken = TestPhone.deviceToken }
        await phone.receivePlan("run-1/nudge", in: 3_600, messageId: "m-1")
        // No clock movement: the acknowledgment went out during the push handling.
        XCTAssertEqual(phone.transport.eventRequests.count, 1)
        let request = try XCTUnwrap(phone.transport.eventRequests.first)
        XCTAssertEqual(request.url.absoluteString, "https://api.buzzkit.test/v1/events")
        XCTAssertEqual(request.header("Authorization"), "Bearer pk_tenant_secret")
        XCTAssertEqual(request.header("X-BuzzKit-Subscriber-Token"), TestPhone.token)
        XCTAssertEqual(request.header("Content-Type"), "application/json")
        let event = try XCTUnwrap(phone.transport.postedEvents.first)
        XCTAssertEqual(event.event, "$local.scheduled")
        XCTAssertEqual(event.subscriberId, "u_123")
        XCTAssertEqual(event.properties, ["localId": "run-1/nudge", "messageId": "m-1", "device": .string(TestPhone.deviceToken)],
                       "the acknowledgment names this phone, so a later release can take it back")
        XCTAssertEqual(event.timestamp, TestPhone.start)
        XCTAssertNotNil(event.id)
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
        let record = await phone.client.planBook.records["run-1/nudge"]
        XCTAssertEqual(record?.acknowledgmentConfirmed, true)
    }

    func testZoneChangeMovesTheAbsoluteFireInstant() async throws {
        let phone = try await TestPhone()
        // 07:00 floating on 2026-12-01: 06:00Z in Berlin, 12:00Z in New York.
        let fireAt = FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0)
        await phone.client.handleRemoteNotification(payload: Payloads.plan("run-1/nudge", fireAt: fireAt))
        phone.clock.setTimeZone(TestPhone.newYork)  // the person flies to New York
        phone.clock.set(to: RFC3339.parse("2026-12-01T06:30:00Z")!)
        var shown = await phone.center.fireDue()
        XCTAssertTrue(shown.isEmpty, "07:00 Berlin has passed, but it is 01:30 in New York")
        phone.clock.set(to: RFC3339.parse("2026-12-01T12:00:00Z")!)
        shown = await phone.center.fireDue()
        XCTAssertEqual(shown.map(\.id), ["run-1/nudge"])
        XCTAssertEqual(shown.first?.scheduledFor, RFC3339.parse("2026-12-01T12:00:00Z"))
        XCTAssertEqual(shown.first?.timeZoneIdentifier, "America/New_York")
    }

    func testPastPlanIsNeitherScheduledNorAcknowledged() async throws {
        let phone = try await TestPhone()
        let outcome = await phone.receivePlan("run-1/nudge", in: -60)
        XCTAssertEqual(outcome, .noData)
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        XCTAssertTrue(phone.transport.eventRequests.isEmpty)
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
        XCTAssertEqual(phone.activity.rejections, [.pastFireTime])
    }

    func testPlanDueExactlyNowCountsAsPast() async throws {
        let phone = try await TestPhone()
        let outcome = await phone.receivePlan("run-1/nudge", in: 0)
        XCTAssertEqual(outcome, .noData)
        XCTAssertEqual(phone.activity.rejections, [.pastFireTime])
    }

    func testDuplicatePlanIsIdempotentWithOneRequestAndOneAcknowledgment() async throws {
        let phone = try await TestPhone()
        let payload = Payloads.plan("run-1/nudge", messageId: "m-1", fireAt: phone.fireAt(in: 3_600))
        let first = await phone.client.handleRemoteNotification(payload: payload)
        let second = await phone.client.handleRemoteNotification(payload: payload)
        XCTAssertEqual(first, .newData)
        XCTAssertEqual(second, .noData)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/nudge"])
        XCTAssertEqual(phone.postedNames, ["$local.scheduled"])
        XCTAssertTrue(phone.activity.all.contains(.planDuplicate(localId: "run-1/nudge", messageId: "m-1")))
    }

    func testDuplicateWhileOfflineStillSendsOneAcknowledgment() async throws {
        let phone = try await TestPhone()
        phone.network.setOnline(false)
        let payload = Payloads.plan("run-1/nudge", messageId: "m-1", fireAt: phone.fireAt(in: 3_600))
        await phone.client.handleRemoteNotification(payload: payload)
        await phone.client.handleRemoteNotification(payload: payload)
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        XCTAssertEqual(phone.postedNames, ["$local.scheduled"])
    }

    func testDifferentPlanUnderTheSameIdReplacesTheRequest() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/nudge", in: 3_600, messageId: "m-1")
        await phone.receivePlan("run-1/nudge", in: 7_200, messageId: "m-2")
        let pending = await phone.center.pendingRequests()
        XCTAssertEqual(pending.map(\.id), ["run-1/nudge"])
        XCTAssertEqual(pending.first?.message?.messageId, "m-2")
        XCTAssertEqual(phone.transport.postedEvents.map { $0.properties["messageId"] }, ["m-1", "m-2"])
    }

    func testMalformedPlanFailsWithoutSchedulingAnything() async throws {
        let phone = try await TestPhone()
        let bad = FireAt(year: 2026, month: 13, day: 1, hour: 7, minute: 0, second: 0)
        let outcome = await phone.client.handleRemoteNotification(payload: Payloads.plan("run-1/nudge", fireAt: bad))
        XCTAssertEqual(outcome, .failed)
        var missingTitle = Payloads.plan("run-1/nudge", fireAt: phone.fireAt(in: 60))
        if case .object(var local)? = missingTitle["bk.local"] {
            local["title"] = nil
            missingTitle["bk.local"] = .object(local)
        }
        let second = await phone.client.handleRemoteNotification(payload: missingTitle)
        XCTAssertEqual(second, .failed)
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        XCTAssertTrue(phone.transport.eventRequests.isEmpty)
    }

    func testUserInfoAndRawBodyEntryPointsScheduleToo() async throws {
        let phone = try await TestPhone()
        let userInfo: [AnyHashable: Any] = [
            "aps": ["content-available": 1],
            "bk.local": ["id": "run-1/a", "messageId": "m-a",
                         "fireAt": ["year": 2026, "month": 12, "day": 1, "hour": 7, "minute": 0, "second": 0],
                         "title": "T", "body": "B", "data": ["flag": true], "cancelOn": ["x.done"]] as [String: Any],
        ]
        let first = await phone.client.didReceiveRemoteNotification(userInfo: userInfo)
        XCTAssertEqual(first, .newData)
        let plan = LocalPlan(id: "run-2/b", messageId: "m-b", fireAt: phone.fireAt(in: 60), title: "T", body: "B")
        let second = await phone.client.didReceiveRemoteNotification(payload: Data(SilentPlanPayload(local: plan).jsonBytes))
        XCTAssertEqual(second, .newData)
        let pending = await phone.center.pendingRequests()
        XCTAssertEqual(pending.map(\.id).sorted(), ["run-1/a", "run-2/b"])
        XCTAssertEqual(pending.first { $0.id == "run-1/a" }?.message?.data, ["flag": true])
        let registry = await phone.client.planBook.registry
        XCTAssertEqual(registry.localIds(for: "x.done"), ["run-1/a"])
    }

    func testUnrelatedAndBrokenPayloads() async throws {
        let phone = try await TestPhone()
        let unrelated = await phone.client.handleRemoteNotification(payload: ["aps": ["content-available": 1], "other": "x"])
        XCTAssertEqual(unrelated, .noData)
        let notJSON = await phone.client.didReceiveRemoteNotification(payload: Data("nope".utf8))
        XCTAssertEqual(notJSON, .failed)
        XCTAssertTrue(phone.transport.requests.isEmpty)
    }
}
