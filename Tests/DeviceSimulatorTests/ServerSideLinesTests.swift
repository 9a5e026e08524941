import BuzzKitWire
@testable import DeviceSimulator
import Foundation
import XCTest

/// A reminder the fleet judged never shown carries the server's side in its trace: which run
/// and plan it was, whether the server counted an acknowledgment, and what it decided and sent
/// at the moment. Without it the `make bench` report could not tell a phone that dropped an
/// acknowledged plan from a server that never sent the fallback.
final class ServerSideLinesTests: XCTestCase {
    private let moment = Date(timeIntervalSince1970: 1_796_000_000)

    private var window: FleetWindow {
        FleetWindow(workoutId: "w-sim-1-d50", subscriberId: "sim-1", behaviour: .crowded, moment: moment, expectation: .once)
    }

    private func run(_ id: String, moment: Date, acknowledgedAt: Date?, fallback: RunSummary.LocalWindow.Fallback?,
                     deliveries: [RunSummary.Delivery]) -> RunSummary {
        var step = RunSummary.Step(name: "nudge", status: .completed, startedAt: moment.addingTimeInterval(-300),
                                   local: .init(localId: "\(id)/nudge", moment: moment, fireAt: FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0),
                                                shiftedByQuietHours: false, planSentTo: 1, acknowledged: acknowledgedAt != nil,
                                                acknowledgedAt: acknowledgedAt, fallback: fallback))
        step.deliveries = deliveries
        return RunSummary(id: id, workflow: "leg-day", subscriberId: "sim-1", dryRun: false, status: .completed, steps: [step])
    }

    func testTheRunAtTheWindowsMomentIsDescribed() throws {
        let fallback = RunSummary.LocalWindow.Fallback(sent: true, idempotencyKey: "k", reason: "no device confirmed the schedule")
        let runs = [
            run("run-other", moment: moment.addingTimeInterval(1), acknowledgedAt: moment.addingTimeInterval(-200), fallback: nil, deliveries: []),
            run("run-d50", moment: moment, acknowledgedAt: nil, fallback: fallback, deliveries: [
                .init(tokenSuffix: "0451", kind: "plan", status: "accepted", apnsId: nil, at: moment.addingTimeInterval(-330), reason: nil),
                .init(tokenSuffix: "0451", kind: "fallback", status: "accepted", apnsId: nil, at: moment.addingTimeInterval(0.25), reason: nil),
            ]),
        ]
        let lines = Fleet.serverLines(for: window, runs: runs)
        XCTAssertEqual(lines, ["server: run run-d50 completed: plan run-d50/nudge sent to 1 device(s), not acknowledged; "
                                + "fallback sent (no device confirmed the schedule); pushes: plan to …0451 accepted at -330.00 s, "
                                + "fallback to …0451 accepted at +0.25 s"])
    }

    func testNoRunAtTheMomentIsSaid() {
        let lines = Fleet.serverLines(for: window, runs: [run("run-other", moment: moment.addingTimeInterval(2), acknowledgedAt: nil, fallback: nil, deliveries: [])])
        XCTAssertEqual(lines, ["server: no run of sim-1 has a local step at the window's moment"])
    }
}
