import BuzzAPI
import BuzzKitWire
import BuzzServer
import Foundation
import PushDelivery
import XCTest

/// `GET /v1/subscribers/{id}/plans` (contract §4b) against the real API and pipeline: what a
/// device that missed a push finds when it syncs.
final class DeviceSyncIntegrationTests: APITestCase {
    struct SyncBody: Decodable {
        var plans: [LocalPlan]
        var asOf: String
    }

    /// The plans a device of `subscriber` is told to hold (asserting a 200).
    func sync(_ subscriber: String, file: StaticString = #filePath, line: UInt = #line) throws -> [LocalPlan] {
        let response = api.call("GET", "/v1/subscribers/\(subscriber)/plans", key: api.publishableKey, headers: api.deviceHeaders(subscriber))
        XCTAssertEqual(response.status, 200, String(decoding: response.data, as: UTF8.self), file: file, line: line)
        let body = try JSONDecoder().decode(SyncBody.self, from: response.data)
        XCTAssertNotNil(RFC3339.parse(body.asOf), "asOf is an RFC 3339 instant", file: file, line: line)
        return body.plans
    }

    func planPushes(to token: String) throws -> [LocalPlan] {
        try api.pipeline.pushes(to: token).filter { $0.pushType == .background }.compactMap {
            try? JSONDecoder().decode(SilentPlanPayload.self, from: $0.payload).local
        }
    }

    func testSyncListsLivePlansExactlyAsTheirPushesCarriedThemInMomentOrder() throws {
        let tokens = try api.pipeline.subscriber("maya")
        XCTAssertEqual(try sync("maya"), [], "nothing planned yet")
        try api.pipeline.scheduleWorkout("maya", at: Date().addingTimeInterval(120), workoutId: "later")
        try api.pipeline.scheduleWorkout("maya", at: Date().addingTimeInterval(60), workoutId: "sooner")
        XCTAssertTrue(TestServices.eventually(timeout: 10) { (try? self.planPushes(to: tokens[0]).count) == 2 })
        let pushed = try planPushes(to: tokens[0])
        let plans = try sync("maya")
        XCTAssertEqual(Set(plans), Set(pushed), "same id, messageId, fireAt and the rest as the pushes")
        let moments = try api.pipeline.runs().reduce(into: [String: Date]()) { out, run in
            if let local = run.state.summary.steps.last?.local { out[local.localId] = local.moment }
        }
        XCTAssertEqual(plans.map { moments[$0.id]! }, plans.map { moments[$0.id]! }.sorted(), "sorted by moment")
        XCTAssertEqual(plans.count, 2)

        // Byte for byte: the sync writes each plan as the push body's `bk.local` member.
        let response = api.call("GET", "/v1/subscribers/maya/plans", key: api.secretKey)
        XCTAssertEqual(response.status, 200, "the secret key may sync any subscriber")
        let text = String(decoding: response.data, as: UTF8.self)
        for push in api.pipeline.pushes(to: tokens[0]) {
            let body = String(decoding: push.payload, as: UTF8.self)
            let prefix = #"{"aps":{"content-available":1},"bk.local":"#
            XCTAssertTrue(body.hasPrefix(prefix) && body.hasSuffix("}"), body)
            XCTAssertTrue(text.contains(String(body.dropFirst(prefix.count).dropLast())), "\(text) holds \(body)")
        }
        XCTAssertEqual(try sync("sam"), [], "another subscriber holds nothing")
    }

    func testCancelledRunsLeaveTheSync() throws {
        let tokens = try api.pipeline.subscriber("jo")
        try api.pipeline.scheduleWorkout("jo", at: Date().addingTimeInterval(60), workoutId: "w1")
        try api.pipeline.scheduleWorkout("jo", at: Date().addingTimeInterval(90), workoutId: "w2")
        XCTAssertTrue(TestServices.eventually(timeout: 10) { (try? self.planPushes(to: tokens[0]).count) == 2 })
        XCTAssertEqual(try sync("jo").count, 2)

        // A central cancel removes its run's plan from the sync at once.
        let runs = try api.pipeline.runs()
        let w1 = try XCTUnwrap(runs.first { $0.state.trigger.properties["workoutId"] == "w1" })
        XCTAssertEqual(api.call("POST", "/v1/runs/\(w1.id.uuidString.lowercased())/cancel", key: api.secretKey).status, 200)
        let left = try sync("jo")
        XCTAssertEqual(left.map(\.id), ["\(runs.first { $0.id != w1.id }!.id.uuidString.lowercased())/nudge"])

        // An event that cancels (workout.completed, a device-decidable rule) removes the rest.
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "workout.completed", "subscriberId": "jo"], key: api.secretKey).status, 202)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try self.api.pipeline.runs().allSatisfy { $0.state.status == .cancelled } })
        XCTAssertEqual(try sync("jo"), [])
    }

    func testDryRunsAreNeverListed() throws {
        try api.pipeline.subscriber("dee")
        let trigger = api.call("POST", "/v1/workflows/leg-day/trigger",
                               body: ["subscriberId": "dee", "dryRun": true,
                                      "properties": ["at": RFC3339.format(Date().addingTimeInterval(60)), "workoutId": "w9"]], key: api.secretKey)
        XCTAssertEqual(trigger.status, 201)
        let runId = try XCTUnwrap(trigger.object["runId"] as? String)
        let summary = api.call("GET", "/v1/runs/\(runId)", key: api.secretKey).object
        XCTAssertEqual(summary["status"] as? String, "waiting", "the dry run waits for a moment still ahead")
        XCTAssertEqual(try sync("dee"), [])
    }

    /// Two local windows in one run: once the first window's moment passed, the run is still
    /// live (waiting for the second), and only the second plan is listed.
    func testPlansWhoseMomentPassedAreNotListed() throws {
        let sessions: [String: Any] = [
            "trigger": ["event": "sessions.booked"],
            "steps": [["name": "first-wait", "waitUntil": ["at": "{{trigger.first}}"]],
                      ["name": "first", "send": ["deliver": "local", "title": "First", "body": "Soon."]],
                      ["name": "second-wait", "waitUntil": ["at": "{{trigger.second}}"]],
                      ["name": "second", "send": ["deliver": "local", "title": "Second", "body": "Later."]]],
        ]
        XCTAssertEqual(api.call("PUT", "/v1/workflows/sessions", body: sessions, key: api.secretKey).status, 200)
        let tokens = try api.pipeline.subscriber("kim")
        let first = Date().addingTimeInterval(4)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "sessions.booked", "subscriberId": "kim",
                                                             "properties": ["first": RFC3339.format(first),
                                                                            "second": RFC3339.format(first.addingTimeInterval(120))]],
                                key: api.secretKey).status, 202)
        XCTAssertTrue(TestServices.eventually(timeout: 10) { (try? self.planPushes(to: tokens[0]).count) == 1 })
        XCTAssertEqual(try sync("kim").map(\.title), ["First"])
        XCTAssertTrue(TestServices.eventually(timeout: 15) { (try? self.planPushes(to: tokens[0]).count) == 2 }, "the second wait began")
        XCTAssertGreaterThan(Date(), first)
        let run = try XCTUnwrap(try api.pipeline.runs().first)
        XCTAssertEqual(run.state.status, .waiting, "the run is live")
        XCTAssertEqual(try sync("kim").map(\.title), ["Second"], "the first plan's moment passed")
    }

    func testADeviceSyncsOnlyItsOwnSubscriber() throws {
        try api.pipeline.subscriber("maya")
        try api.pipeline.scheduleWorkout("maya", at: Date().addingTimeInterval(60))
        XCTAssertTrue(TestServices.eventually(timeout: 10) { (try? self.sync("maya").count) == 1 })
        let pk = api.publishableKey
        let others = api.call("GET", "/v1/subscribers/maya/plans", key: pk, headers: api.deviceHeaders("sam"))
        XCTAssertEqual(others.status, 401, "a token made for sam does not read maya's plans")
        XCTAssertEqual(others.errorCode, "invalid_subscriber_token")
        XCTAssertEqual(api.call("GET", "/v1/subscribers/maya/plans", key: pk).errorCode, "missing_subscriber_token")
        XCTAssertEqual(api.call("GET", "/v1/subscribers/maya/plans").status, 401)
        let rival = try api.pipeline.directory.createTenant(name: "rival")
        let rivalSync = api.call("GET", "/v1/subscribers/maya/plans", key: rival.secretKey)
        XCTAssertEqual(rivalSync.status, 200)
        XCTAssertEqual((rivalSync.object["plans"] as? [Any])?.count, 0, "another tenant's maya is someone else")
        XCTAssertEqual(api.call("GET", "/v1/subscribers/\(String(repeating: "x", count: 201))/plans", key: api.secretKey).errorField, "id")
        let nul = api.call("GET", "/v1/subscribers/a%00b/plans", key: api.secretKey).status
        XCTAssertTrue((400..<500).contains(nul), "a NUL in the path is refused, never bound to SQL (got \(nul))")
    }
}
