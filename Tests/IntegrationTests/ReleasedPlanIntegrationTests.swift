import AMQPClient
import BuzzAPI
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import XCTest

/// Plans a phone lets go of (issue 18, docs/contract.md §4b "Released plans") over the real API,
/// queues and PostgreSQL: devices post `$local.scheduled` and `$local.released` with their
/// token (publishable key + subscriber token), and the moment's decision counts only devices
/// that acknowledged the plan, have not released it since, and are still active.
final class ReleasedPlanIntegrationTests: APITestCase {
    func testAnAcknowledgmentFollowedByAReleaseGetsTheFallbackAtTheMoment() throws {
        let (plan, runId, tokens, moment) = try api.window("maya", devices: 1)
        let t = Date()
        api.say(BuzzEvent.localScheduled, plan, subscriber: "maya", token: tokens[0], at: t)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == true })
        api.say(BuzzEvent.localReleased, plan, subscriber: "maya", token: tokens[0], at: t.addingTimeInterval(1))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == false }, "the summary says no device holds it now")
        XCTAssertTrue(api.summary(runId).local["acknowledgedAt"] is NSNull)
        XCTAssertTrue(api.summary(runId).local["fallback"] is NSNull, "nothing decided before the moment")
        XCTAssertEqual(pipeline.pushes(to: tokens[0]).filter { $0.pushType == .alert }.count, 0)

        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(fallback["reason"] as? String, "released by every device that acknowledged it")
        XCTAssertEqual(fallback["idempotencyKey"] as? String, "\(plan.id)/fallback")
        XCTAssertEqual(alerts, [1])
        let sentAt = try pipeline.pool.withConnection { db in
            try db.query("SELECT min(created_at) AS at FROM deliveries WHERE kind = 'fallback'")[0].decode("at", as: Date.self)
        }
        XCTAssertGreaterThanOrEqual(sentAt.timeIntervalSince(try XCTUnwrap(RFC3339.parse(RFC3339.format(moment)))), 0, "at the moment, not before")
        XCTAssertEqual(api.runtime.metrics.counter("buzzkit_releases_total"), 1, "counted by the API that recorded it")
    }

    func testWithTwoDevicesOneReleaseStillCountsAsAcknowledged() throws {
        let (plan, runId, tokens, _) = try api.window("kim", devices: 2)
        let t = Date()
        for token in tokens { api.say(BuzzEvent.localScheduled, plan, subscriber: "kim", token: token, at: t) }
        api.say(BuzzEvent.localReleased, plan, subscriber: "kim", token: tokens[0], at: t.addingTimeInterval(1))
        XCTAssertTrue(try TestServices.eventually(timeout: 5) { try self.api.standing(plan, token: tokens[0])?.released != nil })
        XCTAssertEqual(api.acknowledged(runId), true, "the other phone still holds it")
        let (fallback, local, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, false)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.confirmed)
        XCTAssertEqual(local["acknowledged"] as? Bool, true)
        XCTAssertEqual(alerts, [0, 0], "one notification: the one the other phone kept")
    }

    func testAReleaseThenAnAcknowledgmentAgainCountsAsAcknowledged() throws {
        let (plan, runId, tokens, _) = try api.window("lee", devices: 1)
        let t = Date()
        api.say(BuzzEvent.localScheduled, plan, subscriber: "lee", token: tokens[0], at: t)
        api.say(BuzzEvent.localReleased, plan, subscriber: "lee", token: tokens[0], at: t.addingTimeInterval(1))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == false })
        // A slot freed: the phone put the plan back and acknowledged it again.
        api.say(BuzzEvent.localScheduled, plan, subscriber: "lee", token: tokens[0], at: t.addingTimeInterval(2))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == true })
        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, false)
        XCTAssertEqual(alerts, [0])
    }

    func testAReleaseProcessedBeforeItsAcknowledgmentStillEndsHeld() throws {
        let (plan, runId, tokens, _) = try api.window("ana", devices: 1)
        let t = Date()
        // The phone released the plan at t and acknowledged it again at t + 2 s; the server
        // gets the release first, then the acknowledgment, then the release once more (a
        // redelivery): only the phone's times count.
        api.say(BuzzEvent.localReleased, plan, subscriber: "ana", token: tokens[0], at: t)
        XCTAssertTrue(try TestServices.eventually(timeout: 5) { try self.api.standing(plan, token: tokens[0])?.released != nil })
        XCTAssertEqual(try api.standing(plan, token: tokens[0])?.scheduled, nil)
        XCTAssertEqual(api.acknowledged(runId), false)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "ana", token: tokens[0], at: t.addingTimeInterval(2))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == true })
        api.say(BuzzEvent.localReleased, plan, subscriber: "ana", token: tokens[0], at: t)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(api.acknowledged(runId), true)
        let (fallback, local, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, false)
        XCTAssertEqual(local["acknowledged"] as? Bool, true)
        XCTAssertEqual(alerts, [0])
    }

    func testAnAcknowledgmentFromAPhoneThatLoggedOutNoLongerSuppressesTheFallback() throws {
        let (plan, runId, tokens, _) = try api.window("jo", devices: 2)
        api.say(BuzzEvent.localScheduled, plan, subscriber: "jo", token: tokens[0], at: Date())
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.api.acknowledged(runId) == true })
        let logout = api.call("DELETE", "/v1/subscribers/jo/devices/\(tokens[0])", key: api.publishableKey, headers: api.deviceHeaders("jo"))
        XCTAssertEqual(logout.status, 204)
        XCTAssertEqual(api.acknowledged(runId), false, "the phone that acknowledged it no longer counts")
        let (fallback, _, alerts) = try api.decision(runId, tokens: tokens)
        XCTAssertEqual(fallback["sent"] as? Bool, true)
        XCTAssertEqual(fallback["reason"] as? String, RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt)
        XCTAssertEqual(alerts, [0, 1], "the fallback reaches the other phone only")
    }

    func testAReleaseWithAMalformedLocalIdIsDeadLetteredWithItsReason() throws {
        try pipeline.subscriber("ren")
        // Through AMQP ingest (no API in front): a local id that names no run.
        try pipeline.publish(BuzzEvent(event: BuzzEvent.localReleased, subscriberId: "ren",
                                       properties: ["localId": "no-run/nudge", "messageId": "m", "device": "ab"], timestamp: Date()))
        let letters = DeadLetters(topology: pipeline.topology, amqp: TestServices.amqp)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.ackIngest).count == 1 })
        let reason = try letters.list(.ackIngest).first?.reason ?? ""
        XCTAssertTrue(reason.contains("$local.released needs properties.localId of the form <runId>/<stepName>"), reason)
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_messages_total", ["queue": "ack-ingest", "outcome": "dead_lettered"]), 1)
        XCTAssertEqual(pipeline.metrics.counter("buzzkit_messages_total", ["queue": "trigger", "outcome": "processed"]), 0, "trigger never sees a release")
    }
}
