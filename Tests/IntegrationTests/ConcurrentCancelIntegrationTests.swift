import BuzzEngine
import BuzzKitWire
import BuzzServer
import BuzzTesting
import Foundation
import XCTest
@testable import BuzzPipeline

/// A trigger and the event that cancels its run, taken by two trigger workers at the same time
/// on real PostgreSQL: each transaction is held open after its work, as a slow commit would
/// be, while the other runs. Neither may miss the other: the run ends cancelled and the
/// person is not reminded of a workout they already did.
final class ConcurrentCancelIntegrationTests: XCTestCase {
    private var pipeline: PipelineHarness!

    override func setUpWithError() throws {
        pipeline = try PipelineHarness(workers: [], startScheduler: false)
        try pipeline.putLegDay()
        try pipeline.subscriber("maya")
    }

    override func tearDown() { pipeline?.shutdown() }

    private func item(_ name: String, at timestamp: Date) -> EventProcessor.Item {
        EventProcessor.Item(tenantId: pipeline.tenantId, event: BuzzEvent(event: name, subscriberId: "maya",
                                                                         properties: ["at": .string(RFC3339.format(Date().addingTimeInterval(3600))),
                                                                                      "workoutId": "w1"],
                                                                         timestamp: timestamp),
                            dedupeKey: UUID().uuidString)
    }

    /// Handles `first` in a transaction that stays open for a moment after its work, and
    /// `second` in another transaction begun while the first is open; returns when both committed.
    private func handleAtOnce(_ first: EventProcessor.Item, _ second: EventProcessor.Item) throws {
        let (store, context) = (pipeline.context.store, pipeline.context)
        let firstDone = DispatchSemaphore(value: 0), worked = DispatchSemaphore(value: 0)
        let failed = LockedFlag()
        Thread {
            do {
                _ = try store.transaction { tx in
                    let rows = try EventProcessor(context: context).process([first], tx: tx)
                    worked.signal()
                    Thread.sleep(forTimeInterval: 0.5)
                    return rows
                }
            } catch {
                failed.set()
                worked.signal()
            }
            firstDone.signal()
        }.start()
        worked.wait()
        _ = try store.transaction { try EventProcessor(context: context).process([second], tx: $0) }
        firstDone.wait()
        XCTAssertFalse(failed.isSet, "the first transaction committed")
    }

    private func onlyRun() throws -> RunRecord {
        let runs = try pipeline.runs()
        XCTAssertEqual(runs.count, 1, "one workout, one run")
        return try XCTUnwrap(runs.first)
    }

    func testACancelTakenWhileItsTriggerIsStillBeingCommittedCancelsTheRun() throws {
        let now = Date()
        try handleAtOnce(item("workout.scheduled", at: now.addingTimeInterval(-1)), item("workout.completed", at: now))
        XCTAssertEqual(try onlyRun().state.status, .cancelled, "the completion waited for the run and cancelled it")
    }

    func testATriggerTakenWhileALaterCancelIsStillBeingCommittedStartsCancelled() throws {
        let now = Date()
        try handleAtOnce(item("workout.completed", at: now), item("workout.scheduled", at: now.addingTimeInterval(-1)))
        XCTAssertEqual(try onlyRun().state.status, .cancelled, "the trigger waited for the completion's mark and started cancelled")
    }
}
