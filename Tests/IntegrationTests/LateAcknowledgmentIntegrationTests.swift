import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// Issue 45, race 3: an acknowledgment and the decision at its window's moment are ordered.
/// One recorded first counts; one recorded after the fallback was decided is late (not
/// recorded, named in the answer), even when it reached the database while the decision was
/// under way.
final class LateAcknowledgmentIntegrationTests: ConformanceTestCase {
    private func word(_ s: Scenario, _ localId: String, device: String, _ kind: DeviceAcknowledgment.Kind = .scheduled) -> DeviceAcknowledgment {
        DeviceAcknowledgment(subscriberId: "u1", localId: localId, device: device, messageId: nil, kind: kind, at: s.now)
    }

    func testAnAcknowledgmentAfterTheFallbackIsLateAndARepeatOfACountedOneIsNot() throws {
        try eachDriver { s in
            let (_, devices, localId) = try s.storedRun("u1", devices: 2)
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.recordAcknowledgments(tenantId: s.tenantId, [word(s, localId, device: devices[0].token)], at: s.now).late, [])
                try tx.lockWindowsForDecision(tenantId: s.tenantId, localIds: [localId])
                try tx.markFallbacksDecided(tenantId: s.tenantId, localIds: [localId], at: s.now)
            }
            try s.store.transaction { tx in
                let late = try tx.recordAcknowledgments(tenantId: s.tenantId, [word(s, localId, device: devices[1].token)], at: s.now)
                XCTAssertEqual(late, AcknowledgmentOutcome(acknowledged: 0, released: 0, late: [localId]), "the other phone's came after the fallback")
                let released = try tx.recordAcknowledgments(tenantId: s.tenantId, [word(s, localId, device: devices[0].token, .released)], at: s.now)
                XCTAssertEqual(released, AcknowledgmentOutcome(acknowledged: 0, released: 1, late: []), "a release is still recorded")
                let other = try tx.recordAcknowledgments(tenantId: s.tenantId, [word(s, "\(UUID().uuidString.lowercased())/x", device: devices[1].token)], at: s.now)
                XCTAssertEqual(other.late, [], "a plan that is not the subscriber's is neither counted nor late")
            }
        }
    }

    /// PostgreSQL: the acknowledgment reaches the database while the decision holds the
    /// window; it waits for the decision's commit and is then late, or counted if the
    /// decision was not a fallback.
    func testAnAcknowledgmentRecordedDuringTheDecisionWaitsForItsOutcome() throws {
        let driver = try PostgresStoreDriver()
        defer { driver.close() }
        let tenantId = try driver.tenant()
        let scenario = Scenario(driver: driver, tenantId: tenantId, workflow: try driver.workflow(tenantId: tenantId, source: PipelineHarness.legDay))
        let (_, devices, fallbackWindow) = try scenario.storedRun("u1", devices: 1)
        let (_, _, quietWindow) = try scenario.storedRun("u1", devices: 0)
        for (localId, fallback) in [(fallbackWindow, true), (quietWindow, false)] {
            let locked = DispatchSemaphore(value: 0)
            let lock = NSLock()
            nonisolated(unsafe) var outcome: (AcknowledgmentOutcome, TimeInterval)?
            let finished = { () -> (AcknowledgmentOutcome, TimeInterval)? in lock.withLock { outcome } }
            let (store, fact) = (driver.store, word(scenario, localId, device: devices[0].token))
            let recorder = Thread {
                locked.wait()
                let started = Date()
                let result = try? store.transaction { tx in try tx.recordAcknowledgments(tenantId: tenantId, [fact], at: Date()) }
                lock.withLock { outcome = result.map { ($0, Date().timeIntervalSince(started)) } }
            }
            recorder.start()
            try driver.store.transaction { tx in
                try tx.lockWindowsForDecision(tenantId: tenantId, localIds: [localId])
                locked.signal()
                Thread.sleep(forTimeInterval: 0.5)  // the acknowledgment arrives meanwhile
                if fallback { try tx.markFallbacksDecided(tenantId: tenantId, localIds: [localId], at: Date()) }
            }
            let deadline = Date().addingTimeInterval(10)
            while finished() == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            let (result, waited) = try XCTUnwrap(finished(), "the acknowledgment was recorded")
            XCTAssertGreaterThan(waited, 0.3, "it waited for the decision")
            XCTAssertEqual(result.late, fallback ? [localId] : [], fallback ? "late: the fallback went out" : "counted: no fallback")
            XCTAssertEqual(result.acknowledged, fallback ? 0 : 1)
        }
    }
}
