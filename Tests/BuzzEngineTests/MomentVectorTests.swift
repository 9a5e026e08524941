import BuzzEngine
import BuzzEngineCLI
import BuzzKitWire
import Foundation
import XCTest

/// The 26 cases of Fixtures/moments.json (docs/contract.md §3), computed by an independent implementation.
final class MomentVectorTests: XCTestCase {
    struct VectorFile: Decodable {
        let cases: [Vector]
    }

    struct Vector: Decodable {
        struct Window: Decodable { let start: String; let end: String }
        struct Expect: Decodable { let moment: String; let fireAt: FireAt; let shiftedByQuietHours: Bool }
        let name: String
        let waitBegins: String
        let time: String
        let timezone: String
        let quietHours: Window?
        let quietHoursPolicy: String?
        let expect: Expect
    }

    private func vectors() throws -> [Vector] {
        try JSONDecoder().decode(VectorFile.self, from: Fixtures.data("moments", "json")).cases
    }

    func testTheFixtureHasAllCases() throws {
        XCTAssertEqual(try vectors().count, 26)
    }

    func testEveryVectorThroughMoments() throws {
        for vector in try vectors() {
            let zone = try XCTUnwrap(ZoneRules(identifier: vector.timezone), vector.name)
            let quiet = try vector.quietHours.map { try QuietHours.parse("\($0.start)-\($0.end)") }
            let result = Moments.localWindow(
                time: try XCTUnwrap(WallClockTime(parsing: vector.time)), zone: zone, subscriberZone: zone,
                waitBegins: instant(vector.waitBegins), quietHours: quiet,
                policy: QuietHours.Policy(rawValue: vector.quietHoursPolicy ?? "shift")!)
            XCTAssertEqual(RFC3339.format(result.moment), vector.expect.moment, vector.name)
            XCTAssertEqual(result.fireAt, vector.expect.fireAt, vector.name)
            XCTAssertEqual(result.shiftedByQuietHours, vector.expect.shiftedByQuietHours, vector.name)
        }
    }

    func testEveryVectorThroughTheMomentCommand() throws {
        for vector in try vectors() {
            var args = ["--time", vector.time, "--timezone", vector.timezone, "--from", vector.waitBegins]
            if let quiet = vector.quietHours {
                args += ["--quiet-hours", "\(quiet.start)-\(quiet.end)", "--policy", vector.quietHoursPolicy ?? "shift"]
            }
            let (output, code) = MomentCommand.run(args)
            XCTAssertEqual(code, 0, vector.name)
            let printed = try JSONDecoder().decode(Vector.Expect.self, from: Data(output.utf8))
            XCTAssertEqual(printed.moment, vector.expect.moment, vector.name)
            XCTAssertEqual(printed.fireAt, vector.expect.fireAt, vector.name)
            XCTAssertEqual(printed.shiftedByQuietHours, vector.expect.shiftedByQuietHours, vector.name)
        }
    }

    func testEveryVectorThroughARunsLocalWindow() throws {
        for vector in try vectors() {
            let workflow = Fixtures.workflow(steps: [
                ["name": "wait", "waitUntil": ["time": .string(vector.time), "timezone": "subscriber"]],
                ["name": "nudge", "send": ["deliver": "local", "title": "T", "body": "B",
                                           "quietHours": .string(vector.quietHoursPolicy ?? "shift")]],
            ])
            let quiet = try vector.quietHours.map { try QuietHours.parse("\($0.start)-\($0.end)") }
            var run = RunState(workflow: workflow, trigger: Fixtures.trigger(),
                               context: RunContext(runId: "r", subscriberTimeZone: vector.timezone, quietHours: quiet))
            let now = instant(vector.waitBegins)
            let actions = run.handle(.start, now: now)
            if RFC3339.format(now) == vector.expect.moment {
                // The moment is the wait's start: no time for a plan, so it goes as a push at once.
                XCTAssertEqual(actions.fallbacks.count, 1, vector.name)
                continue
            }
            let local = try XCTUnwrap(run.steps.last?.local, vector.name)
            XCTAssertEqual(RFC3339.format(local.moment), vector.expect.moment, vector.name)
            XCTAssertEqual(local.plan.fireAt, vector.expect.fireAt, vector.name)
            XCTAssertEqual(local.shiftedByQuietHours, vector.expect.shiftedByQuietHours, vector.name)
            XCTAssertEqual(actions.plans.first?.payload.local.fireAt, vector.expect.fireAt, vector.name)
            XCTAssertEqual(actions.timers.first?.at, local.moment, vector.name)
        }
    }
}
