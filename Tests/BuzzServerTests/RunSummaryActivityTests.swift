import BuzzEngine
import BuzzKitWire
import BuzzStore
import Foundation
import XCTest

/// A run summary files each delivery under the step it was sent for, whatever the step's name.
final class RunSummaryActivityTests: XCTestCase {
    private let at = Date(timeIntervalSince1970: 1_796_029_200)
    private let runId = "0b8e2f57-1c1d-4c71-9d3a-8f9b2f3e6a10"

    private func delivery(_ kind: String) -> RunSummary.Delivery {
        RunSummary.Delivery(tokenSuffix: "a1b2c3", kind: kind, status: "sent", apnsId: nil, at: at, reason: nil)
    }

    /// Step names of 19 characters and more make a fallback's and a push's key longer than
    /// APNs' 64-byte collapse id, so the engine sends them under the SHA-256 of the key; the
    /// summary still shows each on its step.
    func testAFallbackAndAPushAreFiledUnderTheirStepsWhateverTheNamesLength() {
        for (window, push) in [("nudge", "follow-up"), ("remind-before-the-morning-workout", "tell-the-coach-it-was-missed-again")] {
            let localId = PayloadBuilder.localId(runId: runId, stepName: window)
            let local = RunSummary.LocalWindow(localId: localId, moment: at, fireAt: FireAt(year: 2026, month: 11, day: 30, hour: 10, minute: 0, second: 0),
                                               shiftedByQuietHours: false, planSentTo: 1)
            let summary = RunSummary(id: runId, workflow: "leg-day", subscriberId: "maya", dryRun: false, status: .completed,
                                     steps: [RunSummary.Step(name: window, status: .completed, startedAt: at, local: local),
                                             RunSummary.Step(name: push, status: .completed, startedAt: at)])
            let activity = RunActivity(deliveries: [
                .init(idempotencyKey: localId, delivery: delivery("plan")),
                .init(idempotencyKey: PayloadBuilder.fallbackIdempotencyKey(localId: localId), delivery: delivery("fallback")),
                .init(idempotencyKey: PayloadBuilder.pushIdempotencyKey(runId: runId, stepName: push), delivery: delivery("push")),
            ])
            let filed = summary.attaching(activity)
            XCTAssertEqual(filed.steps[0].deliveries.map(\.kind), ["plan", "fallback"], window)
            XCTAssertEqual(filed.steps[1].deliveries.map(\.kind), ["alert"], push)
        }
        XCTAssertEqual(PayloadBuilder.fallbackIdempotencyKey(localId: PayloadBuilder.localId(runId: runId, stepName: "remind-before-the-morning-workout")).count,
                       64, "the long name's key is the hash")
    }
}
