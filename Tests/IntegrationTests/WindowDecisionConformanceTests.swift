import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// `window_decisions` on both stores: a decision recorded once, kept for its run's life, and
/// its run filed under `completed` once by the window completer's queue, unless the run
/// learnt it itself or was cancelled first.
final class WindowDecisionConformanceTests: ConformanceTestCase {
    func testAWindowDecisionIsRecordedOnceKeptForItsRunAndItsRunFiledCompletedOnceOldestFirst() throws {
        try eachDriver { s in
            let first = try s.storedRun("u1", devices: 1), second = try s.storedRun("u2", devices: 1)
            let older = WindowDecision(runId: first.run.id, localId: first.localId, decidedAt: s.now, acknowledgedAt: s.now.addingTimeInterval(-60))
            let newer = WindowDecision(runId: second.run.id, localId: second.localId, decidedAt: s.now.addingTimeInterval(5),
                                       fallbackReason: "no_confirmation")
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.recordWindowDecisions([newer, older, older], learntByRuns: false).count, 2, "the same window twice in one batch is recorded once")
                var repeated = older
                repeated.decidedAt = s.now.addingTimeInterval(99)
                XCTAssertEqual(try tx.recordWindowDecisions([repeated], learntByRuns: false), [], "a repeat changes nothing and is not reported as recorded")
            }
            func statuses(_ tx: any StoreTransaction) throws -> [RunStatus] {
                let heads = Dictionary(uniqueKeysWithValues: try tx.lockRunHeads([first.run.id, second.run.id]).map { ($0.id, $0.status) })
                return [heads[first.run.id], heads[second.run.id]].compactMap { $0 }
            }
            try s.store.transaction { tx in
                XCTAssertEqual(try statuses(tx), [.waiting, .waiting], "recording a decision leaves the run's status to the completer")
                XCTAssertEqual(try tx.windowDecisions(runIds: [first.run.id]), [first.run.id: [older]])
                let taken = try tx.completeDecidedRuns(decidedBefore: s.now.addingTimeInterval(10), limit: 1)
                XCTAssertEqual(taken.filed, [older], "oldest first")
                XCTAssertEqual(taken.toFold, [], "every decision recorded here says whether its run learnt it")
                XCTAssertEqual(try statuses(tx), [.completed, .waiting], "the run of the decision taken is filed completed")
                XCTAssertEqual(try tx.windowDecisions(runIds: [first.run.id, second.run.id]), [first.run.id: [older], second.run.id: [newer]],
                               "a decision stays with its run: the run's state never learns it, its readers fold it in")
                XCTAssertEqual(try tx.completeDecidedRuns(decidedBefore: s.now.addingTimeInterval(1), limit: 10).filed, [],
                               "only decisions older than the delay")
                XCTAssertEqual(try tx.completeDecidedRuns(decidedBefore: s.now.addingTimeInterval(10), limit: 10).filed, [newer], "each decision once")
                XCTAssertEqual(try tx.completeDecidedRuns(decidedBefore: s.now.addingTimeInterval(10), limit: 10).filed, [])
                XCTAssertEqual(try statuses(tx), [.completed, .completed])
            }
        }
    }

    func testTheCompleterLeavesARunCancelledBeforeItsDecisionWasFiledAsItIs() throws {
        try eachDriver { s in
            let stored = try s.storedRun("u1", devices: 1)
            var cancelled = stored.run
            _ = cancelled.state.handle(.cancel, now: s.now)
            XCTAssertEqual(cancelled.state.status, .cancelled)
            try s.store.transaction { tx in
                try tx.recordWindowDecisions([WindowDecision(runId: stored.run.id, localId: stored.localId, decidedAt: s.now, acknowledgedAt: s.now)], learntByRuns: false)
                try tx.updateRun(cancelled)
            }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.completeDecidedRuns(decidedBefore: s.now.addingTimeInterval(10), limit: 10).filed.count, 1)
                XCTAssertEqual(try tx.lockRunHeads([stored.run.id]).map(\.status), [.cancelled], "a cancelled run is not filed completed")
            }
        }
    }

    func testADecisionItsRunLearntAtOnceIsLeftToTheRun() throws {
        try eachDriver { s in
            // fallback-check's full path: the run learnt the decision and may go on to a later
            // step, so the completer must not file it under completed.
            let stored = try s.storedRun("u1", devices: 1)
            try s.store.transaction { tx in
                let decision = WindowDecision(runId: stored.run.id, localId: stored.localId, decidedAt: s.now, fallbackReason: "no_confirmation")
                XCTAssertEqual(try tx.recordWindowDecisions([decision], learntByRuns: true), [decision])
            }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.completeDecidedRuns(decidedBefore: s.now.addingTimeInterval(10), limit: 10).filed, [])
                XCTAssertEqual(try tx.lockRunHeads([stored.run.id]).map(\.status), [.waiting])
                XCTAssertEqual(try tx.windowDecisions(runIds: [stored.run.id]).count, 1, "kept: a redelivered timer finds it decided")
            }
        }
    }
}
