import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

/// Random workflows driven by random input sequences, checking the run's invariants after
/// every call.
final class FuzzRunTests: XCTestCase {
    func testRandomInputSequencesKeepTheInvariants() throws {
        var generator = SplitMix64(seed: 2026)
        var totals = (fallbacks: 0, plans: 0, cancels: 0, completed: 0, failed: 0, releasedFallbacks: 0)
        for iteration in 0..<600 {
            let workflow = try WorkflowDefinition.parse(RandomWorkflow.definition(using: &generator))
            let dryRun = Int.random(in: 0..<4, using: &generator) == 0
            let hasSubscriber = Int.random(in: 0..<5, using: &generator) != 0
            let context = RunContext(runId: "run-\(iteration)", dryRun: dryRun, hasSubscriber: hasSubscriber,
                                     subscriberTimeZone: ["Europe/Berlin", "America/New_York", nil, "Bogus/Zone"].randomElement(using: &generator)!,
                                     tenantDefaultTimeZone: ["Asia/Tokyo", nil].randomElement(using: &generator)!,
                                     quietHours: Bool.random(using: &generator) ? Fixtures.quiet : nil)
            var properties: [String: JSONValue] = ["workoutId": "w1", "name": "Maya", "plan": Bool.random(using: &generator) ? "pro" : "free",
                                                   "stars": .number(.int(Int64.random(in: 0...5, using: &generator)))]
            if Int.random(in: 0..<6, using: &generator) != 0 {
                properties["startsAt"] = .string(["2026-11-30T12:00:00Z", "2026-12-03T18:30:00+01:00", "2026-11-01T00:00:00Z"].randomElement(using: &generator)!)
            }
            var harness = RunHarness(state: RunState(workflow: workflow, trigger: Fixtures.trigger(properties), context: context),
                                  now: instant("2026-11-30T09:00:00Z"))
            harness.apply(.start)
            for _ in 0..<40 {
                harness.now.addTimeInterval(Double(Int.random(in: 0...10_800, using: &generator)))
                harness.apply(harness.randomInput(using: &generator))
                if Int.random(in: 0..<10, using: &generator) == 0 { harness.checkStorage() }
            }
            // Drain: fire the pending timer until the run ends, so every window is decided.
            var guardCount = 0
            while let timer = harness.state.pendingTimer, guardCount < 200 {
                harness.now = max(harness.now, timer.at)
                harness.apply(.timerFired(timer))
                guardCount += 1
            }
            XCTAssertTrue(harness.state.status.isFinal, "run \(iteration) did not finish: \(harness.state.status)")
            harness.checkFinal()
            totals.fallbacks += harness.fallbacks.count
            totals.plans += harness.plans.count
            totals.cancels += harness.state.status == .cancelled ? 1 : 0
            totals.completed += harness.state.status == .completed ? 1 : 0
            totals.failed += harness.state.status == .failed ? 1 : 0
            totals.releasedFallbacks += harness.state.steps.filter { step in
                step.local.map { $0.fallback?.sent == true && $0.releaseReason != nil } ?? false
            }.count
        }
        // The random mix really exercises every path.
        XCTAssertGreaterThan(totals.fallbacks, 20)
        XCTAssertGreaterThan(totals.plans, 50)
        XCTAssertGreaterThan(totals.cancels, 20)
        XCTAssertGreaterThan(totals.completed, 20)
        XCTAssertGreaterThan(totals.failed, 5)
        XCTAssertGreaterThan(totals.releasedFallbacks, 0, "released windows decided by the fuzz")
    }
}
