import BuzzEngine
import BuzzKitWire
import Foundation
import BuzzTesting
import XCTest

/// `send.expiresAfter` (docs/contract.md §4c): how long after its moment a notification is
/// still worth showing. The plan says so in `expiresAt`, and every alert carries it as
/// `apns-expiration`, so an offline phone does not show "Leg day, 6:00" hours later.
final class RunLifetimeTests: XCTestCase {
    private let begins = instant("2026-11-30T09:00:00Z")
    private let moment = instant("2026-12-01T06:00:00Z")  // 07:00 Berlin

    /// Leg day with `expiresAfter` set on its send (left out when nil).
    private func legDay(expiresAfter: JSONValue?, deliver: String = "local") -> JSONValue {
        var send: [String: JSONValue] = ["deliver": .string(deliver)]
        if let expiresAfter { send["expiresAfter"] = expiresAfter }
        return LegDay.value(send: send)
    }

    private func run(_ json: JSONValue) -> RunState {
        RunState(workflow: Fixtures.workflow(json), trigger: Fixtures.trigger(),
                 context: RunContext(runId: "run-1", subscriberTimeZone: "Europe/Berlin"))
    }

    func testThePlanAndItsFallbackLastAnHourAfterTheMomentByDefault() throws {
        var state = run(legDay(expiresAfter: nil))
        let started = state.handle(.start, now: begins)
        let plan = try XCTUnwrap(started.plans.first)
        XCTAssertEqual(plan.payload.local.expiresAt, moment.addingTimeInterval(3600))
        XCTAssertTrue(plan.body.contains("\"expiresAt\":\"2026-12-01T07:00:00Z\""), plan.body)
        let fallback = try XCTUnwrap(state.handle(.timerFired(try XCTUnwrap(started.timers.first)), now: moment).fallbacks.first)
        XCTAssertEqual(fallback.headers.expiration, Int64(moment.timeIntervalSince1970) + 3600, "apns-expiration")
        XCTAssertEqual(fallback.expiresAt, moment.addingTimeInterval(3600))
    }

    func testExpiresAfterSetsTheLifetimeOfThePlanTheFallbackAndAPush() throws {
        var state = run(legDay(expiresAfter: "30m"))
        let started = state.handle(.start, now: begins)
        XCTAssertEqual(started.plans.first?.payload.local.expiresAt, moment.addingTimeInterval(1800))
        let fallback = try XCTUnwrap(state.handle(.timerFired(try XCTUnwrap(started.timers.first)), now: moment).fallbacks.first)
        XCTAssertEqual(fallback.expiresAt, moment.addingTimeInterval(1800))

        var push = run(legDay(expiresAfter: "2h", deliver: "push"))
        let timer = try XCTUnwrap(push.handle(.start, now: begins).timers.first)
        let alert = try XCTUnwrap(push.handle(.timerFired(timer), now: moment).pushes.first)
        XCTAssertEqual(alert.expiresAt, moment.addingTimeInterval(7200), "a push lives from when it is sent")
    }

    func testAPlanReadBackKeepsItsLifetimeAndOneWithoutItStillReads() throws {
        var state = run(legDay(expiresAfter: "45m"))
        let plan = try XCTUnwrap(state.handle(.start, now: begins).plans.first).payload.local
        XCTAssertEqual(try LocalPlan(json: try JSONParser.parse(Data(plan.jsonBytes())), path: "").expiresAt, moment.addingTimeInterval(2700))
        let older = try LocalPlan(json: ["id": "r/n", "messageId": "m", "fireAt": ["year": 2026, "month": 12, "day": 1, "hour": 7, "minute": 0, "second": 0],
                                         "title": "t", "body": "b", "data": [:], "cancelOn": []], path: "")
        XCTAssertNil(older.expiresAt)
    }

    func testALifetimeOutsideOneSecondToSevenDaysIsRefused() {
        for bad: JSONValue in ["8d", "0s", "-1h", "soon", 3600, ""] {
            XCTAssertThrowsError(try WorkflowDefinition.parse(legDay(expiresAfter: bad)), "\(bad)") { error in
                let problems = (error as? EngineError)?.problems ?? []
                XCTAssertTrue(problems.contains { $0.path.hasSuffix("send.expiresAfter") }, "\(bad): \(problems)")
            }
        }
        for good: JSONValue in ["7d", "1s", "1h30m"] {
            XCTAssertNoThrow(try WorkflowDefinition.parse(legDay(expiresAfter: good)), "\(good)")
        }
    }

    func testADefinitionWrittenBackKeepsItsLifetime() throws {
        let parsed = try WorkflowDefinition.parse(legDay(expiresAfter: "90m"))
        let again = try WorkflowDefinition.parse(parsed.jsonValue)
        XCTAssertEqual(again, parsed)
    }
}
