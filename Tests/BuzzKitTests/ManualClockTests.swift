import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The manual clock wakes sleepers when moved past their deadline and never loses a wake-up.
final class ManualClockTests: XCTestCase {
    func testSleeperWakesOnlyWhenTheDeadlineIsReached() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let woke = Locked(false)
        let task = Task {
            try await clock.sleep(until: TestPhone.start.addingTimeInterval(10))
            woke.withLock { $0 = true }
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        XCTAssertEqual(clock.nextDeadline, TestPhone.start.addingTimeInterval(10))
        clock.advance(by: 9)
        try await Task.sleep(nanoseconds: 10_000_000)
        XCTAssertFalse(woke.current)
        clock.advance(by: 1)
        try await task.value
        XCTAssertTrue(woke.current)
        XCTAssertEqual(clock.sleeperCount, 0)
    }

    func testPastDeadlineReturnsAtOnce() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        try await clock.sleep(until: TestPhone.start)
        try await clock.sleep(until: TestPhone.start.addingTimeInterval(-5))
    }

    func testCancellationWakesTheSleeperWithAnError() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let task = Task { try await clock.sleep(until: TestPhone.start.addingTimeInterval(3_600)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        task.cancel()
        do {
            try await task.value
            XCTFail("the sleep was not cancelled")
        } catch is CancellationError {}
        XCTAssertEqual(clock.sleeperCount, 0)
    }

    func testZoneChangeKeepsTheInstant() {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        clock.setTimeZone(TestPhone.newYork)
        XCTAssertEqual(clock.now, TestPhone.start)
        XCTAssertEqual(clock.timeZone.identifier, "America/New_York")
    }

    func testSystemClockSleepsInRealTime() async throws {
        let clock = SystemClock(timeZone: TestPhone.berlin)
        let started = Date()
        try await clock.sleep(until: started.addingTimeInterval(0.02))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.015)
        clock.setTimeZone(TestPhone.newYork)
        XCTAssertEqual(clock.timeZone, TestPhone.newYork)
    }
}
