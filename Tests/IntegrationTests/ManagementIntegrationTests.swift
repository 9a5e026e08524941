import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import XCTest

/// What operators and support do over the real API: erase a subscriber in the middle of a
/// run, look a subscriber up, search runs page by page, retire a workflow.
final class ManagementIntegrationTests: APITestCase {
    func testErasureInTheMiddleOfARunCancelsOnThePhoneSendsNothingMoreAndLeavesNoRows() throws {
        let token = try XCTUnwrap(try pipeline.subscriber("maya").first)
        let moment = Date().addingTimeInterval(6)
        try pipeline.scheduleWorkout("maya", at: moment)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.pipeline.pushes(to: token).count == 1 }, "the plan reached the phone")
        let runId = try XCTUnwrap(try pipeline.runs().first?.id)

        let answer = api.call("DELETE", "/v1/subscribers/maya", key: api.secretKey)
        XCTAssertEqual(answer.status, 204, String(decoding: answer.data, as: UTF8.self))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.pipeline.pushes(to: token).count == 2 }, "the phone got bk.cancel")
        let cancel = try XCTUnwrap(pipeline.pushes(to: token).last)
        XCTAssertEqual(cancel.pushType, .background)
        XCTAssertTrue(String(decoding: cancel.payload, as: UTF8.self).contains("\(runId.uuidString.lowercased())"), "the cancel names the run")

        // The rows are gone at once, the run with them (its trigger properties are Maya's).
        let left = try pipeline.pool.withConnection { db in
            try ["subscribers", "devices", "acknowledgments", "opens", "local_plans"].map { table -> Int in
                let column = table == "subscribers" ? "id" : "subscriber_id"
                return try db.query("SELECT count(*) AS n FROM \(unsafeRaw: table) WHERE tenant_id = \(pipeline.tenantId) AND \(unsafeRaw: column) = 'maya'")[0]
                    .decode("n", as: Int.self)
            }
        }
        XCTAssertEqual(left, [0, 0, 0, 0, 0])
        XCTAssertEqual(api.call("GET", "/v1/subscribers/maya", key: api.secretKey).status, 404)
        XCTAssertEqual(api.call("GET", "/v1/runs/\(runId.uuidString.lowercased())", key: api.secretKey).status, 404)

        // Past the moment: no fallback, nothing at all after the answer.
        Thread.sleep(until: moment.addingTimeInterval(3))
        XCTAssertEqual(pipeline.pushes(to: token).count, 2, "nothing after the cancel")
        XCTAssertEqual(api.call("DELETE", "/v1/subscribers/maya", key: api.secretKey).status, 204, "erasing again is no error")
        XCTAssertEqual(api.call("DELETE", "/v1/subscribers/maya", key: api.publishableKey, headers: api.deviceHeaders("maya")).status, 403,
                       "a device cannot erase")
    }

    /// After `DELETE /v1/subscribers/{id}` answers, no table holds the subscriber's id, its
    /// properties or its device tokens (in any column, as text or as bytes), except the
    /// tombstone, which holds only the id's SHA-256 and refuses the subscriber's late device
    /// traffic until the backend puts the subscriber again.
    func testAfterErasureNoTableHoldsThePersonAndTheirDevicesAreRefused() throws {
        let person = "zed-\(UUID().uuidString.prefix(8).lowercased())"
        let secret = "w-\(UUID().uuidString.prefix(12).lowercased())"  // a trigger property only Zed's run holds
        let tokens = try pipeline.subscriber(person, devices: 2)
        try pipeline.scheduleWorkout(person, at: Date().addingTimeInterval(3600), workoutId: secret)
        try pipeline.scheduleWorkout(person, at: Date().addingTimeInterval(-60), workoutId: secret + "-past")  // a fallback at once: a run that completes
        XCTAssertTrue(TestServices.eventually(timeout: 10) { tokens.allSatisfy { self.pipeline.pushes(to: $0).count >= 2 } }, "plan and fallback reached both phones")
        let plan = try XCTUnwrap(pipeline.pushes(to: tokens[0]).compactMap { try? JSONDecoder().decode(SilentPlanPayload.self, from: $0.payload).local }.first)
        for (path, body) in [("/v1/events", ["id": "evt-\(secret)", "event": "app.opened", "subscriberId": person]),
                             ("/v1/events", ["event": "$local.scheduled", "subscriberId": person,
                                             "properties": ["localId": plan.id, "messageId": plan.messageId, "device": tokens[0]]]),
                             ("/v1/events", ["event": "$push.opened", "subscriberId": person, "properties": ["messageId": plan.messageId]])] as [(String, [String: Any])] {
            XCTAssertEqual(api.call("POST", path, body: body, key: api.publishableKey, headers: api.deviceHeaders(person)).status, 202)
        }
        XCTAssertTrue(TestServices.eventually(timeout: 5) {
            (try? self.pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM processed_events")[0].decode("n", as: Int.self) }) ?? 0 > 0
        }, "the device's event id was recorded")

        let needles = [person, secret] + tokens
        func walk() throws -> [String] { try pipeline.pool.withConnection { db -> [String] in
            let tables = try db.query("""
                SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1
                """).map { try $0.decode("table_name", as: String.self) }
            XCTAssertGreaterThan(tables.count, 10, "every table of the schema: \(tables)")
            var hits: [String] = []
            for table in tables {
                for needle in needles {
                    let hex = needle.utf8.map { String(format: "%02x", $0) }.joined()
                    // The whole row as text (bytea shows as hex), so every column is searched.
                    let n = try db.query("""
                        SELECT count(*) AS n FROM \(unsafeRaw: "\"" + table + "\"") x
                        WHERE strpos(x::text, \(needle)) > 0 OR strpos(x::text, \(hex)) > 0
                        """)[0].decode("n", as: Int.self)
                    if n > 0 { hits.append("\(table) holds \(needle) in \(n) rows") }
                }
            }
            return hits
        } }
        let before = try walk()
        for table in ["runs", "devices", "subscribers", "local_plans", "acknowledgments", "opens", "processed_events"] {
            XCTAssertTrue(before.contains { $0.hasPrefix(table + " ") }, "before the erasure \(table) holds the person: \(before)")
        }
        XCTAssertEqual(api.call("DELETE", "/v1/subscribers/\(person)", key: api.secretKey).status, 204)
        Thread.sleep(forTimeInterval: 1)  // the cancels' own sends record their deliveries
        let found = try walk()
        XCTAssertEqual(found, [], "nothing of the person is left")
        let tombstones = try pipeline.pool.withConnection { try $0.query("SELECT count(*) AS n FROM erased_subscribers")[0].decode("n", as: Int.self) }
        XCTAssertEqual(tombstones, 1)

        // Late traffic from Zed's phones is refused and recreates nothing.
        let device = api.deviceHeaders(person)
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/\(person)/devices", body: ["platform": "ios", "token": tokens[0], "topic": "com.example.gym"],
                                key: api.publishableKey, headers: device).status, 410)
        XCTAssertEqual(api.call("GET", "/v1/subscribers/\(person)/plans", key: api.publishableKey, headers: device).status, 410)
        let late = api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": person], key: api.publishableKey, headers: device)
        XCTAssertEqual(late.status, 410)
        XCTAssertEqual((late.object["error"] as? [String: Any])?["code"] as? String, "subscriber_erased")
        // An acknowledgment alone is checked together with the requests recorded beside it.
        let lateAck = api.call("POST", "/v1/events", body: ["event": "$local.scheduled", "subscriberId": person,
                                                           "properties": ["localId": plan.id, "messageId": plan.messageId, "device": tokens[0]]],
                               key: api.publishableKey, headers: device)
        XCTAssertEqual(lateAck.status, 410)
        XCTAssertEqual((lateAck.object["error"] as? [String: Any])?["code"] as? String, "subscriber_erased")
        XCTAssertEqual(try walk(), [], "the refused acknowledgment recreated nothing")
        // The backend knowing the person again lifts it.
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/\(person)", body: ["timezone": "Europe/Berlin"], key: api.secretKey).status, 200)
        XCTAssertEqual(api.call("PUT", "/v1/subscribers/\(person)/devices", body: ["platform": "ios", "token": tokens[0], "topic": "com.example.gym"],
                                key: api.publishableKey, headers: device).status, 200)
    }

    func testTheSummaryListsEveryPushOfAStepByDeviceAndTheFirstOpen() throws {
        let tokens = try pipeline.subscriber("maya", devices: 2)
        try pipeline.scheduleWorkout("maya", at: Date().addingTimeInterval(3600))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { tokens.allSatisfy { !self.pipeline.pushes(to: $0).isEmpty } })
        let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: try XCTUnwrap(pipeline.pushes(to: tokens[0]).first).payload).local
        let runId = String(plan.id.prefix { $0 != "/" })
        let opened = api.call("POST", "/v1/events", body: ["event": "$push.opened", "subscriberId": "maya", "properties": ["messageId": plan.messageId]],
                              key: api.publishableKey, headers: api.deviceHeaders("maya"))
        XCTAssertEqual(opened.status, 202)
        XCTAssertEqual(api.call("POST", "/v1/runs/\(runId)/cancel", key: api.secretKey).status, 200)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { tokens.allSatisfy { self.pipeline.pushes(to: $0).count == 2 } }, "the cancels went out")

        // A phone has its push before the batch that sent it commits the delivery's row.
        var summary: [String: Any] = [:]
        XCTAssertTrue(TestServices.eventually(timeout: 5) {
            summary = self.api.call("GET", "/v1/runs/\(runId)", key: self.api.secretKey).object
            let recorded = ((summary["steps"] as? [[String: Any]])?.last?["deliveries"] as? [Any])?.count ?? 0
            return summary["opened"] is [String: Any] && recorded == 4
        }, "the open and every push were recorded")
        XCTAssertEqual((summary["opened"] as? [String: Any])?["messageId"] as? String, plan.messageId)
        let steps = try XCTUnwrap(summary["steps"] as? [[String: Any]])
        XCTAssertEqual((steps.first?["deliveries"] as? [Any])?.count, 0, "the wait sent nothing")
        let deliveries = try XCTUnwrap(steps.last?["deliveries"] as? [[String: Any]])
        XCTAssertEqual(deliveries.compactMap { $0["kind"] as? String }, ["plan", "plan", "cancel", "cancel"])
        XCTAssertEqual(Set(deliveries.compactMap { $0["tokenSuffix"] as? String }), Set(tokens.map { String($0.suffix(8)) }))
        XCTAssertTrue(deliveries.allSatisfy { $0["status"] as? String == "sent" && $0["apnsId"] is String && $0["at"] is String })
        let listed = api.call("GET", "/v1/runs?subscriberId=maya", key: api.secretKey).object["runs"] as? [[String: Any]]
        XCTAssertEqual(((listed?.first?["steps"] as? [[String: Any]])?.last?["deliveries"] as? [Any])?.count, 4, "run search shows the same")
    }

    func testASubscriberIsShownWithItsDevicesByTheirTokensLastCharacters() throws {
        let tokens = try pipeline.subscriber("maya", devices: 2)
        let object = api.call("GET", "/v1/subscribers/maya", key: api.secretKey).object
        XCTAssertEqual(object["id"] as? String, "maya")
        XCTAssertEqual(object["timezone"] as? String, "Europe/Berlin")
        let devices = try XCTUnwrap(object["devices"] as? [[String: Any]])
        XCTAssertEqual(Set(devices.compactMap { $0["tokenSuffix"] as? String }), Set(tokens.map { String($0.suffix(8)) }))
        XCTAssertEqual(devices.compactMap { $0["active"] as? Bool }, [true, true])
        XCTAssertFalse(String(decoding: api.call("GET", "/v1/subscribers/maya", key: api.secretKey).data, as: UTF8.self).contains(tokens[0]),
                       "whole tokens are never shown")
        XCTAssertEqual(api.call("GET", "/v1/subscribers/nobody", key: api.secretKey).status, 404)
    }

    func testRunSearchWithEveryFilterAcrossPagesNewestFirst() throws {
        var started: [String] = []
        for (n, subscriber) in ["maya", "maya", "ola", "maya", "maya", "ola", "maya", "maya"].enumerated() {
            let answer = api.call("POST", "/v1/workflows/leg-day/trigger", body: ["subscriberId": subscriber,
                                                                                 "properties": ["at": RFC3339.format(Date().addingTimeInterval(3600)), "n": n]],
                                  key: api.secretKey)
            started.append(try XCTUnwrap(answer.object["runId"] as? String))
        }
        let mayas = zip(started, ["maya", "maya", "ola", "maya", "maya", "ola", "maya", "maya"]).filter { $0.1 == "maya" }.map(\.0)
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let path = "/v1/runs?subscriberId=maya&workflow=leg-day&limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let answer = api.call("GET", path, key: api.secretKey)
            XCTAssertEqual(answer.status, 200, String(decoding: answer.data, as: UTF8.self))
            let page = answer.object
            let runs = try XCTUnwrap(page["runs"] as? [[String: Any]])
            XCTAssertLessThanOrEqual(runs.count, 2)
            seen += runs.compactMap { $0["id"] as? String }
            cursor = page["nextCursor"] as? String
            pages += 1
        } while cursor != nil && pages < 10
        XCTAssertEqual(seen, mayas.reversed(), "every run of the subscriber once, newest first, across pages")
        XCTAssertEqual(pages, 3)

        _ = api.call("POST", "/v1/runs/\(mayas[0])/cancel", key: api.secretKey)
        let all = api.call("GET", "/v1/runs?limit=100", key: api.secretKey).object["runs"] as? [Any]
        XCTAssertEqual(all?.count, 8)
        XCTAssertTrue(api.call("GET", "/v1/runs?limit=100", key: api.secretKey).object.keys.contains("nextCursor"), "nextCursor is null, not left out")
        let statuses = (api.call("GET", "/v1/runs?status=cancelled", key: api.secretKey).object["runs"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        XCTAssertEqual(statuses, [mayas[0]])
        XCTAssertEqual((api.call("GET", "/v1/runs?workflow=other", key: api.secretKey).object["runs"] as? [Any])?.count, 0)
        for bad in ["limit=0", "limit=101", "cursor=nonsense", "status=sleeping", "sort=oldest"] {
            let answer = api.call("GET", "/v1/runs?\(bad)", key: api.secretKey)
            XCTAssertEqual(answer.status, 400, bad)
        }
    }

    func testARetiredWorkflowStartsNothingNewAndItsLiveRunFinishes() throws {
        let token = try XCTUnwrap(try pipeline.subscriber("maya").first)
        let moment = Date().addingTimeInterval(5)
        try pipeline.scheduleWorkout("maya", at: moment)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { !self.pipeline.pushes(to: token).isEmpty })
        let listed = api.call("GET", "/v1/workflows", key: api.secretKey).object["workflows"] as? [[String: Any]]
        XCTAssertEqual(listed?.compactMap { $0["key"] as? String }, ["leg-day"])
        XCTAssertNotNil(listed?.first?["updatedAt"] as? String)

        XCTAssertEqual(api.call("DELETE", "/v1/workflows/leg-day", key: api.secretKey).status, 204)
        XCTAssertEqual((api.call("GET", "/v1/workflows", key: api.secretKey).object["workflows"] as? [Any])?.count, 0)
        XCTAssertEqual(api.call("DELETE", "/v1/workflows/leg-day", key: api.secretKey).status, 404, "already retired")
        XCTAssertEqual(api.call("POST", "/v1/workflows/leg-day/trigger", body: ["subscriberId": "maya"], key: api.secretKey).status, 404)
        try pipeline.scheduleWorkout("maya", at: moment.addingTimeInterval(60), workoutId: "w2")

        // The live run still ends at its moment: no device acknowledged, so the fallback goes out.
        XCTAssertTrue(TestServices.eventually(timeout: 15) { self.pipeline.pushes(to: token).contains { $0.pushType == .alert } })
        XCTAssertEqual(try pipeline.runs().count, 1, "the event after the retirement started nothing")
        XCTAssertTrue(TestServices.eventually(timeout: 5) { (try? self.pipeline.runs().first?.state.status) == .completed })

        // Stored again, it is current again as the next version.
        XCTAssertEqual(api.call("PUT", "/v1/workflows/leg-day", body: try JSONSerialization.jsonObject(with: JSONEncoder().encode(PipelineHarness.legDay)),
                                key: api.secretKey).object["version"] as? Int, 2)
        XCTAssertEqual((api.call("GET", "/v1/workflows", key: api.secretKey).object["workflows"] as? [[String: Any]])?.first?["version"] as? Int, 2)
    }
}
