import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

/// Random zones (all of `TimeZone.knownTimeZoneIdentifiers`), instants, times and quiet hours.
final class MomentPropertyTests: XCTestCase {
    private let zones = TimeZone.knownTimeZoneIdentifiers.compactMap { ZoneRules(identifier: $0) }

    private func randomTime(_ generator: inout SplitMix64) -> WallClockTime {
        WallClockTime(hour: Int.random(in: 0..<24, using: &generator), minute: [0, 15, 30, 45, 59].randomElement(using: &generator)!,
                      second: Bool.random(using: &generator) ? 0 : Int.random(in: 0..<60, using: &generator))!
    }

    private func randomInstant(_ generator: inout SplitMix64) -> Date {
        // 2000 to 2040, with a fraction of a second now and then.
        let seconds = Double(Int64.random(in: 946_684_800...2_208_988_800, using: &generator))
        return Date(timeIntervalSince1970: seconds + (Bool.random(using: &generator) ? 0 : 0.375))
    }

    private func secondsOfDay(_ wall: FireAt) -> Int { wall.hour * 3600 + wall.minute * 60 + wall.second }

    func testMomentInvariantsOverRandomZonesAndInstants() {
        XCTAssertGreaterThan(zones.count, 300)
        var generator = SplitMix64(seed: 2026)
        for iteration in 0..<20_000 {
            let zone = zones[iteration % zones.count]
            let start = randomInstant(&generator)
            let time = randomTime(&generator)
            var quiet: QuietHours?
            if Bool.random(using: &generator) {
                quiet = QuietHours(start: randomTime(&generator), end: randomTime(&generator))
            }
            let policy: QuietHours.Policy = Int.random(in: 0..<4, using: &generator) == 0 ? .ignore : .shift
            let result = Moments.localWindow(time: time, zone: zone, subscriberZone: zone, waitBegins: start,
                                             quietHours: quiet, policy: policy)
            let context = "\(zone) \(RFC3339.format(start)) \(time) \(quiet.map(\.description) ?? "-") \(policy)"
            XCTAssertGreaterThanOrEqual(result.moment, start, context)
            XCTAssertLessThanOrEqual(result.moment.timeIntervalSince(start), 49 * 3600, context)
            XCTAssertEqual(result.fireAt, zone.wallClock(at: result.moment), context)
            if let quiet, policy == .shift {
                XCTAssertFalse(quiet.contains(secondsOfDay: secondsOfDay(result.fireAt)), context)
            }
            if quiet == nil || policy == .ignore {
                XCTAssertFalse(result.shiftedByQuietHours, context)
                let raw = Moments.nextOccurrence(of: time, in: zone, atOrAfter: start)
                XCTAssertEqual(raw, result.moment, context)
                XCTAssertLessThanOrEqual(raw.timeIntervalSince(start), 49 * 3600, context)
            }
        }
    }

    func testNextOccurrenceIsTheFirstMatchingWallClock() {
        // Where the wall clock exists, the moment shows exactly that time, and no earlier
        // instant at or after the start shows it.
        var generator = SplitMix64(seed: 99)
        for iteration in 0..<3000 {
            let zone = zones[(iteration * 7) % zones.count]
            let start = randomInstant(&generator)
            let time = randomTime(&generator)
            let moment = Moments.nextOccurrence(of: time, in: zone, atOrAfter: start)
            let wall = zone.wallClock(at: moment)
            let context = "\(zone) \(RFC3339.format(start)) \(time)"
            if secondsOfDay(wall) == time.secondsOfDay {
                // Scan back a day in 15-minute steps for an earlier instant with the same wall clock
                // (the first occurrence in a fold, or an earlier day).
                var probe = moment.addingTimeInterval(-900)
                while probe >= start && probe > moment.addingTimeInterval(-26 * 3600) {
                    let probeWall = zone.wallClock(at: probe)
                    let earlierSameDay = probeWall.year == wall.year && probeWall.month == wall.month && probeWall.day == wall.day
                    XCTAssertFalse(secondsOfDay(probeWall) == time.secondsOfDay && earlierSameDay, context)
                    probe = probe.addingTimeInterval(-900)
                }
            } else {
                // A gap: the wall clock moved forward by the gap's length.
                let before = zone.secondsFromUTC(at: moment.addingTimeInterval(-86_400 / 2))
                let after = zone.secondsFromUTC(at: moment)
                XCTAssertGreaterThan(after, before, context)
                XCTAssertEqual((secondsOfDay(wall) - time.secondsOfDay + 86_400) % 86_400, after - before, context)
            }
        }
    }

    func testOffsetTableAgreesWithTimeZone() {
        var generator = SplitMix64(seed: 5)
        for zone in zones {
            let timeZone = TimeZone(identifier: zone.identifier)!
            for _ in 0..<60 {
                let date = Date(timeIntervalSince1970: Double(Int64.random(in: -100_000_000...8_000_000_000, using: &generator)))
                XCTAssertEqual(zone.secondsFromUTC(at: date), timeZone.secondsFromGMT(for: date), "\(zone) \(RFC3339.format(date))")
            }
            // Around every transition of the zone in 2020–2030.
            var cursor = instant("2020-01-01T00:00:00Z")
            while let next = timeZone.nextDaylightSavingTimeTransition(after: cursor), next < instant("2030-01-01T00:00:00Z") {
                for delta in [-1.0, 0, 1] {
                    let date = next.addingTimeInterval(delta)
                    XCTAssertEqual(zone.secondsFromUTC(at: date), timeZone.secondsFromGMT(for: date), "\(zone) \(RFC3339.format(date))")
                }
                cursor = next
            }
        }
    }

    func testWallClockArithmeticAgreesWithCalendar() {
        var generator = SplitMix64(seed: 17)
        for iteration in 0..<4000 {
            let zone = zones[(iteration * 13) % zones.count]
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone.identifier)!
            let date = randomInstant(&generator)
            let components = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let wall = zone.wallClock(at: date)
            XCTAssertEqual([wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second],
                           [components.year!, components.month!, components.day!, components.hour!, components.minute!, components.second!],
                           "\(zone) \(RFC3339.format(date))")
            // Local to instant, including gaps (moved forward) and folds (first occurrence),
            // which is what Calendar.date(from:) does.
            var wanted = wall
            wanted.hour = Int.random(in: 0..<24, using: &generator)
            wanted.minute = Int.random(in: 0..<60, using: &generator)
            let expected = calendar.date(from: DateComponents(year: wanted.year, month: wanted.month, day: wanted.day,
                                                              hour: wanted.hour, minute: wanted.minute, second: wanted.second))
            XCTAssertEqual(zone.instant(of: wanted), expected, "\(zone) \(wanted)")
        }
    }

    func testGapsAndFoldsAgainstCalendarAroundEveryTransition() {
        for identifier in ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "America/Santiago",
                           "Asia/Tehran", "Africa/Casablanca", "Europe/Dublin", "Pacific/Chatham"] {
            guard let zone = ZoneRules(identifier: identifier) else { return XCTFail(identifier) }
            let timeZone = TimeZone(identifier: identifier)!
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            var cursor = instant("2008-01-01T00:00:00Z")
            while let next = timeZone.nextDaylightSavingTimeTransition(after: cursor), next < instant("2032-01-01T00:00:00Z") {
                for minutes in stride(from: -150, through: 150, by: 10) {
                    var wall = zone.wallClock(at: next.addingTimeInterval(Double(minutes * 60)))
                    wall.second = 0
                    let expected = calendar.date(from: DateComponents(year: wall.year, month: wall.month, day: wall.day,
                                                                      hour: wall.hour, minute: wall.minute, second: 0))
                    XCTAssertEqual(zone.instant(of: wall), expected, "\(identifier) \(wall)")
                }
                cursor = next
            }
        }
    }

    func testZoneResolutionOrder() {
        XCTAssertEqual(ZoneRules.resolve(subscriber: "Asia/Tokyo", tenantDefault: "Europe/Berlin").identifier, "Asia/Tokyo")
        XCTAssertEqual(ZoneRules.resolve(subscriber: nil, tenantDefault: "Europe/Berlin").identifier, "Europe/Berlin")
        XCTAssertEqual(ZoneRules.resolve(subscriber: "Mars/Olympus", tenantDefault: "Europe/Berlin").identifier, "Europe/Berlin")
        XCTAssertEqual(ZoneRules.resolve(subscriber: "", tenantDefault: nil).identifier, "UTC")
        XCTAssertEqual(ZoneRules.resolve(subscriber: nil, tenantDefault: "nope").identifier, "UTC")
        XCTAssertNil(ZoneRules(identifier: "utc"))
    }

    func testQuietHoursWindowMembership() {
        let overnight = Fixtures.quiet
        XCTAssertTrue(overnight.contains(secondsOfDay: 22 * 3600))
        XCTAssertTrue(overnight.contains(secondsOfDay: 3 * 3600))
        XCTAssertFalse(overnight.contains(secondsOfDay: 8 * 3600))
        XCTAssertFalse(overnight.contains(secondsOfDay: 12 * 3600))
        let daytime = try? QuietHours.parse("12:00-14:30")
        XCTAssertEqual(daytime?.contains(secondsOfDay: 13 * 3600), true)
        XCTAssertEqual(daytime?.contains(secondsOfDay: 14 * 3600 + 1800), false)
        XCTAssertNil(QuietHours(start: WallClockTime(hour: 8, minute: 0)!, end: WallClockTime(hour: 8, minute: 0)!))
        XCTAssertNil(WallClockTime(parsing: "25:00"))
        XCTAssertNil(WallClockTime(parsing: "7:00"))
        XCTAssertEqual(WallClockTime(parsing: "07:00:30")?.secondsOfDay, 25_230)
    }
}
