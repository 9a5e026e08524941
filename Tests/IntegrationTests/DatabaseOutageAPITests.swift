import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// PostgreSQL down for a whole minute, longer than the API's 30 s key cache, with traffic
/// going on over real HTTP: the backend's key, seen before, keeps being served (events need
/// only RabbitMQ); a key never seen and anything that needs the database are `503` with
/// `Retry-After` at once (the pool stops trying for a second after PostgreSQL refused it), never
/// `500`; once PostgreSQL is back, every event accepted during the outage
/// becomes its run and its plan reaches the phone.
final class DatabaseOutageAPITests: APITestCase {
    func testAMinuteWithoutPostgreSQLIs503NeverA500AndLosesNoAcceptedEvent() throws {
        let token = try XCTUnwrap(try pipeline.subscriber("maya").first)
        func schedule(_ workoutId: String) -> APIHarness.Response {
            api.call("POST", "/v1/events", body: ["event": "workout.scheduled", "subscriberId": "maya",
                                                  "properties": ["at": RFC3339.format(Date().addingTimeInterval(3600)), "workoutId": workoutId]],
                     key: api.secretKey)
        }
        XCTAssertEqual(schedule("before").status, 202, "the backend's key is looked up and cached")
        XCTAssertTrue(TestServices.eventually(timeout: 10) { self.pipeline.pushes(to: token).count == 1 })

        try TestServices.services("stop-postgres")
        var restarted = false
        defer { if !restarted { try? TestServices.services("start-postgres") } }
        let down = Date()
        var accepted: [String] = []
        var statuses: [String: [Int]] = [:]
        var missingRetryAfter = 0
        var slowest: TimeInterval = 0
        var round = 0
        while Date().timeIntervalSince(down) < 60 {
            let id = "during-\(round)"
            let event = schedule(id)
            statuses["backend event", default: []].append(event.status)
            if event.status == 202 { accepted.append(id) }
            let t0 = Date()
            let deviceAnswer = api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "maya"],
                                        key: api.publishableKey, headers: api.deviceHeaders("maya"))
            let t1 = Date()
            let searchAnswer = api.call("GET", "/v1/runs?subscriberId=maya", key: api.secretKey)
            slowest = max(slowest, t1.timeIntervalSince(t0), Date().timeIntervalSince(t1))
            for (name, answer) in [("device event", deviceAnswer), ("run search", searchAnswer)] {
                statuses[name, default: []].append(answer.status)
                if answer.status == 503 && answer.headers["retry-after"] == nil { missingRetryAfter += 1 }
            }
            round += 1
            Thread.sleep(forTimeInterval: 3)
        }
        try TestServices.services("start-postgres")
        restarted = true

        XCTAssertEqual(Set(statuses["backend event"] ?? []), [202], "a key seen before keeps serving events, past its 30 s in the cache")
        XCTAssertEqual(Set(statuses["device event"] ?? []), [503], "a key never seen cannot be checked: 503")
        XCTAssertEqual(Set(statuses["run search"] ?? []), [503], "what needs the database is 503")
        XCTAssertEqual(missingRetryAfter, 0, "every 503 says when to come back")
        XCTAssertLessThan(slowest, 2, "a 503 comes at once, not after waiting out the pool")
        XCTAssertGreaterThanOrEqual(accepted.count, 15)

        // Back: every event accepted during the outage is a run, its plan on the phone.
        XCTAssertTrue(TestServices.eventually(timeout: 60) { self.pipeline.pushes(to: token).count == 1 + accepted.count },
                      "\(self.pipeline.pushes(to: token).count - 1) of \(accepted.count) plans after the outage")
        let runs = try pipeline.runs()
        XCTAssertEqual(runs.count, 1 + accepted.count, "one run each, none twice")
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "maya"],
                                key: api.publishableKey, headers: api.deviceHeaders("maya")).status, 202, "devices are served again")
    }
}
