import AppleModelCore
import BuzzKitWire
import Foundation
import UserNotifications
import XCTest

/// The model's calendar trigger against the independent time vectors (DESIGN's "Time", kept in
/// the repository beside the engine's tests): the
/// floating wall clock a plan carries fires at the vector's moment in the vector's zone, DST gaps
/// and folds included. The model decides this with Foundation's `Calendar`, not the SDK's code,
/// so the fleet would show a disagreement between the two.
final class CalendarTriggerTests: XCTestCase {
    private struct Vectors: Decodable {
        struct Case: Decodable {
            struct Expect: Decodable {
                var moment: String?
                var fireAt: FireAt?
            }
            var name: String
            var waitBegins: String
            var timezone: String
            var expect: Expect
        }
        var cases: [Case]
    }

    func testTheModelFiresEachVectorsWallClockAtItsMoment() async throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../BuzzEngineTests/Fixtures/moments.json").standardizedFileURL
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
        var checked = 0
        for vector in vectors.cases {
            guard let fireAt = vector.expect.fireAt, let moment = vector.expect.moment.flatMap(RFC3339.parse),
                  let zone = TimeZone(identifier: vector.timezone), let begins = RFC3339.parse(vector.waitBegins) else { continue }
            let now = Clock(begins.addingTimeInterval(-3600))
            let center = UNUserNotificationCenter(modelDevice: ModelDevice(now: { now.value }, timeZone: { zone }, sleep: { _ in }))
            // A floating wall clock: Gregorian components with no zone, as the SDK schedules a plan.
            let components = DateComponents(year: fireAt.year, month: fireAt.month, day: fireAt.day,
                                            hour: fireAt.hour, minute: fireAt.minute, second: fireAt.second)
            let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: false)
            try await center.add(UNNotificationRequest(identifier: vector.name, content: UNMutableNotificationContent(), trigger: trigger))
            now.value = moment.addingTimeInterval(-1)
            let early = await center.modelDeliverDue()
            XCTAssertTrue(early.isEmpty, "\(vector.name): fired before \(moment)")
            now.value = moment
            let fired = await center.modelDeliverDue()
            XCTAssertEqual(fired.map(\.notification.date), [moment], "\(vector.name): \(fireAt) in \(vector.timezone)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }

    private final class Clock: @unchecked Sendable {
        var value: Date
        init(_ value: Date) { self.value = value }
    }
}
