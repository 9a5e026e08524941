import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A crowded phone (70 plans listed at once, beside the app's own reminders) syncs in a few
/// round trips to the notification center, not a few per plan: each is a suspension point
/// iOS's daemon answers, and the fleet all at once had wakes wait on such syncs past iOS's
/// 30 s. What it schedules is what the center's 64-request limit allows, soonest first.
final class CrowdedSyncTests: XCTestCase {
    func testASyncOfSeventyPlansReadsTheCenterOnceAndKeepsTheSoonestWithinTheLimit() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let inner = InMemoryNotificationCenter(clock: clock, capacity: 64)
        let center = InstrumentedCenter(wrapping: inner)
        for index in 0..<10 {  // the app's own reminders, all sooner than BuzzKit's plans
            try await inner.add(NotificationRequest(id: "own-\(index)", title: "Drink water", body: "A glass now.", sound: nil, userInfo: [:],
                                                    fireAt: FireAt(instant: TestPhone.start.addingTimeInterval(Double(60 + index)), in: TestPhone.berlin)))
        }
        let transport = RecordingTransport()
        let plans = (1...70).map { hour in
            LocalPlan(id: String(format: "run-%02d/nudge", hour), messageId: "m-\(hour)", fireAt: FireAt(
                instant: TestPhone.start.addingTimeInterval(Double(hour) * 3_600), in: TestPhone.berlin),
                      title: "Dose \(hour)", body: "Time for it.")
        }
        let configuration = TestPhone.configuration(subscriberId: "u_123")
        let client = try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(
            notificationCenter: center, clock: clock, store: InMemoryKeyValueStore(), transport: transport, random: { 0 }))
        await client.start()
        await client.applicationDidBecomeActive()
        transport.setPlans(plans)
        center.resetCounts()

        await client.syncPlans()

        let pending = await inner.pendingRequests().map(\.id).sorted()
        let expected = (0..<10).map { "own-\($0)" } + (1...54).map { String(format: "run-%02d/nudge", $0) }
        XCTAssertEqual(pending, expected.sorted(), "the app's 10 and BuzzKit's 54 soonest: the limit of 64")
        let acknowledged = Set(transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }.compactMap { $0.properties["localId"]?.stringValue })
        XCTAssertEqual(acknowledged, Set((1...54).map { String(format: "run-%02d/nudge", $0) }), "exactly the plans in the center")
        let reads = center.reads
        XCTAssertLessThanOrEqual(reads.pending, 4, "pending requests read \(reads.pending) times for 70 plans")
        XCTAssertLessThanOrEqual(reads.authorization, 2, "permission read \(reads.authorization) times for 70 plans")
        XCTAssertLessThanOrEqual(reads.categories, 2, "categories read \(reads.categories) times for 70 plans")
        await client.shutdown()
    }
}
