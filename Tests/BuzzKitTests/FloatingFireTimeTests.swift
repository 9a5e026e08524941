import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// `fireAt` is a floating wall clock: its instant depends on the device's zone, with the
/// server's DST rules.
final class FloatingFireTimeTests: XCTestCase {
    private let berlin = TimeZone(identifier: "Europe/Berlin")!
    private let newYork = TimeZone(identifier: "America/New_York")!

    func testSameWallClockIsADifferentInstantInEachZone() {
        let fireAt = FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0)
        XCTAssertEqual(RFC3339.format(fireAt.instant(in: berlin)), "2026-12-01T06:00:00Z")
        XCTAssertEqual(RFC3339.format(fireAt.instant(in: newYork)), "2026-12-01T12:00:00Z")
        XCTAssertEqual(RFC3339.format(fireAt.instant(in: TimeZone(identifier: "UTC")!)), "2026-12-01T07:00:00Z")
    }

    func testTimeInsideSpringGapMovesForwardByTheGap() {
        // Berlin skips 02:00–03:00 on 2026-03-29: 02:30 becomes 03:30 CEST = 01:30Z.
        let fireAt = FireAt(year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0)
        XCTAssertEqual(RFC3339.format(fireAt.instant(in: berlin)), "2026-03-29T01:30:00Z")
    }

    func testTimeInsideAutumnFoldTakesTheFirstOccurrence() {
        // Berlin repeats 02:00–03:00 on 2026-10-25: the first 02:30 is CEST = 00:30Z.
        let fireAt = FireAt(year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0)
        XCTAssertEqual(RFC3339.format(fireAt.instant(in: berlin)), "2026-10-25T00:30:00Z")
    }

    func testWallClockOfAnInstantRoundTrips() {
        let instant = RFC3339.parse("2026-07-04T16:45:30Z")!
        let wall = FireAt(instant: instant, in: newYork)
        XCTAssertEqual(wall, FireAt(year: 2026, month: 7, day: 4, hour: 12, minute: 45, second: 30))
        XCTAssertEqual(wall.instant(in: newYork), instant)
    }

    func testValidityOfComponents() {
        XCTAssertTrue(FireAt(year: 2028, month: 2, day: 29, hour: 23, minute: 59, second: 59).isValid)
        XCTAssertFalse(FireAt(year: 2026, month: 2, day: 29, hour: 7, minute: 0, second: 0).isValid)
        XCTAssertFalse(FireAt(year: 2026, month: 13, day: 1, hour: 7, minute: 0, second: 0).isValid)
        XCTAssertFalse(FireAt(year: 2026, month: 1, day: 1, hour: 24, minute: 0, second: 0).isValid)
    }
}
