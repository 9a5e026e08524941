import BuzzKitWire
@testable import DeviceSimulator
import Foundation
import XCTest

/// A snoozer and a person who taps Done on the lock screen choose a button once the reminder is
/// shown, waiting for it until the fleet's settle time after the moment. A reminder an outage
/// held up past that (a RabbitMQ restart delays the fallbacks, say) is shown to nobody waiting:
/// no button is chosen, and the drill once counted that as a snooze not shown again and as a
/// Done the server did not record. Its lateness is judged in the table, its choice not at all.
final class ChoiceNotMadeTests: XCTestCase {
    private let moment = Date(timeIntervalSince1970: 1_796_000_000)

    private func report(shownLate: Bool, stoppedWaiting: Bool?) -> FleetReport {
        var window = FleetWindow(workoutId: "w-sim-1-d1", subscriberId: "sim-1", behaviour: .snoozer, moment: moment, expectation: .once)
        window.shownAfterThePersonStoppedWaiting = stoppedWaiting
        let shown = FleetReport.Outcome.Shown(at: moment.addingTimeInterval(shownLate ? 19 : 0.2), kind: "remote", id: "run-1/nudge/fallback",
                                              device: 1, owner: "sim-1")
        var report = FleetReport(outcomes: [FleetReport.Outcome(window: window, shown: [shown], lostAfterAcknowledging: false)])
        report.snoozeSeconds = 30
        return report
    }

    func testAReminderShownAfterThePersonStoppedWaitingIsNotJudgedForItsSnooze() {
        XCTAssertEqual(report(shownLate: true, stoppedWaiting: true).violations, [])
        XCTAssertEqual(report(shownLate: true, stoppedWaiting: true).rows.first?.exactlyOnce, 1, "shown once all the same")
    }

    /// A person who waited and saw it, but whose snooze never showed it again, is a violation.
    func testASnoozeThatNeverShowsAgainIsStillABrokenRule() {
        XCTAssertEqual(report(shownLate: false, stoppedWaiting: nil).violations,
                       ["snoozer: 1 snoozed reminder(s) were not shown again exactly once, after the snooze"])
    }
}
