import BuzzKitWire
import BuzzServer
import Foundation
import PushDelivery
import XCTest

/// Local windows driven through the real API, as devices and backends drive them: a window
/// planned for a subscriber's phones, the devices' `$local.scheduled` / `$local.released`,
/// the run summary, and the decision at the moment.
extension APIHarness {
    /// Far enough ahead that the devices' events are recorded before the moment.
    static let windowLead: TimeInterval = 8

    /// Starts a window for `subscriber` with `devices` phones; returns its plan, its run id and the tokens.
    func window(_ subscriber: String, devices: Int, lead: TimeInterval = APIHarness.windowLead) throws -> (plan: LocalPlan, runId: String, tokens: [String], moment: Date) {
        let tokens = try pipeline.subscriber(subscriber, devices: devices)
        let moment = Date().addingTimeInterval(lead)
        try pipeline.scheduleWorkout(subscriber, at: moment)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { tokens.allSatisfy { !self.pipeline.pushes(to: $0).isEmpty } })
        let push = try XCTUnwrap(pipeline.pushes(to: tokens[0]).first)
        let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: push.payload).local
        return (plan, String(plan.id.prefix { $0 != "/" }), tokens, moment)
    }

    /// Posts `$local.scheduled` / `$local.released` as the phone with `token` does, stamped with the phone's clock.
    /// Posts a device's word on `plan`; returns the answer's `late` list (acknowledgments not
    /// counted because the window's fallback was decided first).
    @discardableResult
    func say(_ name: String, _ plan: LocalPlan, subscriber: String, token: String, at: Date) -> [String] {
        answer(name, plan, subscriber: subscriber, token: token, at: at)?.late ?? []
    }

    /// Posts a device's word on `plan`; returns the whole `202` answer.
    func answer(_ name: String, _ plan: LocalPlan, subscriber: String, token: String, at: Date) -> AcceptedEvents? {
        let body: [String: Any] = ["id": UUID().uuidString.lowercased(), "event": name, "subscriberId": subscriber, "timestamp": RFC3339.format(at),
                                   "properties": ["localId": plan.id, "messageId": plan.messageId, "device": token]]
        let answer = call("POST", "/v1/events", body: body, key: publishableKey, headers: deviceHeaders(subscriber))
        XCTAssertEqual(answer.status, 202, String(decoding: answer.data, as: UTF8.self))
        return try? JSONDecoder().decode(AcceptedEvents.self, from: answer.data)
    }

    /// `GET /v1/runs/{id}`: the window's `local` member and the run's status.
    func summary(_ runId: String) -> (local: [String: Any], status: String?) {
        let object = call("GET", "/v1/runs/\(runId)", key: secretKey).object
        let local = ((object["steps"] as? [[String: Any]])?.last?["local"] as? [String: Any]) ?? [:]
        return (local, object["status"] as? String)
    }

    func acknowledged(_ runId: String) -> Bool? { summary(runId).local["acknowledged"] as? Bool }

    /// The device's row: its latest scheduled and released times.
    func standing(_ plan: LocalPlan, token: String) throws -> (scheduled: Date?, released: Date?)? {
        try pipeline.pool.withConnection { db in
            try db.query("SELECT scheduled_ts, released_ts FROM acknowledgments WHERE local_id = \(plan.id) AND device = \(token)").first.map {
                (try $0.decode("scheduled_ts", as: Date?.self), try $0.decode("released_ts", as: Date?.self))
            }
        }
    }

    /// Waits for the decision; returns the `fallback` member and the alerts each token received.
    func decision(_ runId: String, tokens: [String], lead: TimeInterval = APIHarness.windowLead) throws -> (fallback: [String: Any], local: [String: Any], alerts: [Int]) {
        XCTAssertTrue(TestServices.eventually(timeout: lead + 10) { self.summary(runId).status == "completed" })
        Thread.sleep(forTimeInterval: 0.5)  // a (wrong) second send would show by now
        let local = summary(runId).local
        return (local["fallback"] as? [String: Any] ?? [:], local, tokens.map { pipeline.pushes(to: $0).filter { $0.pushType == .alert }.count })
    }
}
