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

    /// The center fires what came due between two looks even when the app adds a request in
    /// between (the crowded phones add plans while their doses fire): a due request is the
    /// soonest of the 64, not a past one to discard.
    func testARequestThatCameDueBeforeTheNextLookStillFiresAfterAnAdd() async throws {
        let start = Date(timeIntervalSince1970: 1_796_000_000)
        let now = Clock(start)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let center = UNUserNotificationCenter(modelDevice: ModelDevice(now: { now.value }, timeZone: { zone }, sleep: { _ in }),
                                              capacity: 2)
        func request(_ id: String, at instant: Date) -> UNNotificationRequest {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let components = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
            return UNNotificationRequest(identifier: id, content: UNMutableNotificationContent(),
                                         trigger: UNCalendarNotificationTrigger(dateMatching: components, repeats: false))
        }
        try await center.add(request("dose-1", at: start.addingTimeInterval(1)))
        try await center.add(request("dose-2", at: start.addingTimeInterval(5)))
        now.value = start.addingTimeInterval(2)  // dose-1 is due; the center has not looked yet
        try await center.add(request("dose-3", at: start.addingTimeInterval(3)))
        let fired = await center.modelDeliverDue()
        XCTAssertEqual(fired.map(\.notification.request.identifier), ["dose-1"], "shown, a second late, not discarded")
        let pending = await center.pendingNotificationRequests()
        XCTAssertEqual(pending.map(\.identifier), ["dose-3"], "the latest-firing of the three went (capacity 2)")
    }

    private final class Clock: @unchecked Sendable {
        var value: Date
        init(_ value: Date) { self.value = value }
    }
}
