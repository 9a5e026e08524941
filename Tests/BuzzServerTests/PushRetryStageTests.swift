import BuzzEngine
import BuzzKitWire
import Foundation
import PushDelivery
import XCTest
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore

/// Durable retries and lifetimes (docs/contract.md §4c) through the stages, on the in-memory
/// store: a failed push waits in the outbox, not in a process, and is recorded `expired` once
/// its lifetime ends.
final class PushRetryStageTests: InMemoryPipelineTestCase {
    private func statuses(_ kind: String) -> [String] {
        pipeline.store.withState { state in state.deliveries.values.filter { $0.kind == kind }.compactMap { $0.outcome?.status } }
    }

    private func alerts(to device: DeviceRecord) -> [PushNotification] {
        pipeline.pushes(to: device).filter { $0.pushType == .alert }
    }

    func testAFallbackAPNsRefusedIsSentAgainFromTheOutboxAndArrivesOnce() throws {
        let device = try pipeline.addSubscriber("sam", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "sam")
        try pipeline.pump()
        pipeline.push.setOutcome(.failed(status: 500, reason: "InternalServerError"), forToken: device.token)
        pipeline.clock.advance(by: 22 * 3600)  // the moment
        try pipeline.pump()
        XCTAssertEqual(statuses("fallback"), ["failed"])
        XCTAssertEqual(pipeline.runs[0].state.summary.steps.last?.status, .fallbackSent, "decided, with its retry in the outbox")
        XCTAssertEqual(pipeline.store.withState { $0.outbox.count }, 1, "the retry waits in the outbox")

        pipeline.clock.advance(by: 4)
        try pipeline.pump()
        XCTAssertEqual(alerts(to: device).count, 1, "not before the backoff")
        pipeline.push.removeOutcome(forToken: device.token)
        pipeline.clock.advance(by: 1)
        try pipeline.pump()
        XCTAssertEqual(alerts(to: device).count, 2, "the refused try and the one that got through")
        XCTAssertEqual(statuses("fallback"), ["sent"])
        XCTAssertEqual(alerts(to: device).last?.expiration, alerts(to: device).first?.expiration)
        pipeline.clock.advance(by: 3600)
        try pipeline.pump()
        XCTAssertEqual(alerts(to: device).count, 2, "nothing more once it was sent")
    }

    func testTheWaitDoublesAndTheLastTryComesBeforeTheLifetimeEnds() throws {
        let device = try pipeline.addSubscriber("kim", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "kim")
        try pipeline.pump()
        pipeline.push.setOutcome(.failed(status: 503, reason: "ServiceUnavailable"), forToken: device.token)
        pipeline.clock.advance(by: 22 * 3600)
        let moment = pipeline.clock.now
        var tries: [TimeInterval] = []
        for _ in 0..<(3600 / 5 + 10) {
            let before = alerts(to: device).count
            try pipeline.pump()
            if alerts(to: device).count > before { tries.append(pipeline.clock.now.timeIntervalSince(moment)) }
            pipeline.clock.advance(by: 5)
        }
        XCTAssertEqual(Array(tries.prefix(6)), [0, 5, 10, 20, 40, 80], "the wait doubles from 5 s")
        XCTAssertTrue(tries.dropFirst(8).allSatisfy { $0 <= 3599 }, "no try at or after the end of the lifetime: \(tries)")
        XCTAssertLessThanOrEqual(zip(tries.dropFirst(), tries).map { $0 - $1 }.max() ?? 0, 300, "at most five minutes apart")
        XCTAssertEqual(statuses("fallback"), ["expired"])
        XCTAssertTrue(pipeline.store.withState { $0.outbox.isEmpty }, "no retry left")
    }

    func testAFallbackDecidedAfterItsLifetimeIsRecordedExpiredAndNotSent() throws {
        let device = try pipeline.addSubscriber("ida", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "ida")
        try pipeline.pump()
        pipeline.clock.advance(by: 25 * 3600)  // the fallback check ran three hours late (an outage)
        try pipeline.pump()
        XCTAssertTrue(alerts(to: device).isEmpty, "an hour-old reminder is not shown")
        XCTAssertEqual(statuses("fallback"), ["expired"])
    }

    func testACancelAPNsRefusedIsRetriedToo() throws {
        let device = try pipeline.addSubscriber("ana", devices: 1)[0]
        try pipeline.event("workout.scheduled", subscriber: "ana")
        try pipeline.pump()
        pipeline.push.setOutcome(.failed(status: nil, reason: "closed: the provider is shutting down"), forToken: device.token)
        try pipeline.event("workout.completed", subscriber: "ana")
        try pipeline.pump()
        XCTAssertEqual(statuses("cancel"), ["failed"])
        pipeline.push.removeOutcome(forToken: device.token)
        pipeline.clock.advance(by: 5)
        try pipeline.pump()
        XCTAssertEqual(statuses("cancel"), ["sent"])
        XCTAssertEqual(pipeline.pushes(to: device).filter { String(decoding: $0.payload, as: UTF8.self).contains("bk.cancel") }.count, 2)
    }

    func testAPlanRetryWaitingWhenItsRunIsCancelledIsDeletedAndNeverSent() throws {
        let device = try pipeline.addSubscriber("eli", devices: 1)[0]
        pipeline.push.setOutcome(.failed(status: 503, reason: "ServiceUnavailable"), forToken: device.token)
        try pipeline.event("workout.scheduled", subscriber: "eli")
        try pipeline.pump()
        XCTAssertEqual(statuses("plan"), ["failed"])
        pipeline.push.removeOutcome(forToken: device.token)
        try pipeline.event("workout.completed", subscriber: "eli")
        try pipeline.pump()
        let handled = pipeline.delivered.count
        pipeline.clock.advance(by: 60)
        try pipeline.pump()
        XCTAssertFalse(pipeline.delivered.dropFirst(handled).contains { if case .sendPlan = $0 { return true } else { return false } },
                       "the retry was deleted with the run's timers, not merely skipped when its turn came")
        XCTAssertEqual(pipeline.pushes(to: device).filter { $0.pushType == .background }.count, 1, "only the refused try: no plan after the cancel")
        XCTAssertTrue(pipeline.store.withState { $0.outbox.isEmpty }, "the retry went with the run's timers")
    }
}
