import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// On an iPhone a plan becomes a calendar trigger from ``FireAt/floatingDateComponents``: the
/// person gets it at the planned wall clock in whatever zone the phone is in, and on the planned
/// Gregorian day even if they chose another calendar in Settings. Checked here on Linux: the
/// components are Gregorian with no time zone, and resolving them in a zone gives the instant
/// the in-memory center (and the server) use.
final class FloatingTriggerComponentsTests: XCTestCase {
    private let zones = ["Europe/Berlin", "America/New_York", "Asia/Kathmandu"].map { TimeZone(identifier: $0)! }
    private let fireAt = FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 30, second: 15)

    func testComponentsAreGregorianWallClockWithoutATimeZone() throws {
        let components = fireAt.floatingDateComponents
        XCTAssertNil(components.timeZone, "a time zone would pin the trigger to one zone")
        XCTAssertEqual(components.calendar?.identifier, .gregorian)
        XCTAssertEqual(components.year, 2026)
        XCTAssertEqual(components.month, 12)
        XCTAssertEqual(components.day, 1)
        XCTAssertEqual(components.hour, 7)
        XCTAssertEqual(components.minute, 30)
        XCTAssertEqual(components.second, 15)
        XCTAssertNil(components.era, "no era: a Japanese or Buddhist calendar cannot renumber the year")
        XCTAssertNil(components.weekday)
    }

    func testResolvedInAZoneTheComponentsGiveTheSameInstantAsTheSDK() throws {
        for zone in zones {
            var calendar = try XCTUnwrap(fireAt.floatingDateComponents.calendar)
            calendar.timeZone = zone
            let resolved = try XCTUnwrap(calendar.date(from: fireAt.floatingDateComponents), zone.identifier)
            XCTAssertEqual(resolved, fireAt.instant(in: zone), zone.identifier)
        }
        // Kathmandu is UTC+05:45: 07:30:15 there is 01:45:15Z.
        let kathmandu = TimeZone(identifier: "Asia/Kathmandu")!
        XCTAssertEqual(RFC3339.format(fireAt.instant(in: kathmandu)), "2026-12-01T01:45:15Z")
    }

    func testSummerTimeWallClocksResolveAlike() throws {
        let summer = FireAt(year: 2026, month: 7, day: 4, hour: 18, minute: 0, second: 0)
        for zone in zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            XCTAssertEqual(calendar.date(from: summer.floatingDateComponents), summer.instant(in: zone), zone.identifier)
        }
    }

    func testFloatingComponentsRoundTrip() {
        for wall in [fireAt, FireAt(year: 2028, month: 2, day: 29, hour: 0, minute: 0, second: 0),
                     FireAt(year: 2026, month: 12, day: 31, hour: 23, minute: 59, second: 59)] {
            XCTAssertEqual(FireAt(floating: wall.floatingDateComponents), wall)
        }
    }

    func testComponentsWithoutADateAreNotAWallClock() {
        var components = DateComponents()
        components.hour = 7
        XCTAssertNil(FireAt(floating: components))
        components.year = 2026
        components.month = 12
        components.day = 1
        XCTAssertEqual(FireAt(floating: components), FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0))
    }
}
