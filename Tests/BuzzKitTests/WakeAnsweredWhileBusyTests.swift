import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A wake answers iOS within ``Configuration/backgroundBudget`` of the push's arrival even
/// when the SDK itself is busy: a state change ahead of it (here a notification center that
/// takes seconds to add a request, as a crowded phone's sync of 72 plans did under load)
/// holds the gate. The push it could not apply is persisted and applied at the next launch,
/// once; and nothing it leaves behind can be shown beside the server's fallback.
final class WakeAnsweredWhileBusyTests: XCTestCase {
    private static let budget: TimeInterval = 1.0
    private static let stall: TimeInterval = 3.0

    private func makeClient(_ center: any NotificationScheduling, _ store: InMemoryKeyValueStore,
                            _ transport: RecordingTransport) throws -> BuzzKitClient {
        var configuration = Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test")!, publishableKey: "pk_t",
                                          subscriberId: "u_123", subscriberToken: .fixed(TestPhone.token), pushTopic: "t")
        configuration.backgroundBudget = Self.budget
        return try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(
            notificationCenter: center, clock: SystemClock(timeZone: TestPhone.berlin), store: store, transport: transport, random: { 0 }))
    }

    private func plan(_ id: String, in seconds: TimeInterval) -> LocalPlan {
        let payload = Payloads.plan(id, fireAt: FireAt(instant: Date().addingTimeInterval(seconds), in: TestPhone.berlin))
        guard case .plan(let plan) = IncomingPush(payload: payload) else { preconditionFailure("not a plan") }
        return plan
    }

    func testAPushWaitingBehindAStalledStateChangeIsAnsweredInTimeAndAppliedOnceAtTheNextLaunch() async throws {
        let inner = InMemoryNotificationCenter(clock: SystemClock(timeZone: TestPhone.berlin))
        let center = InstrumentedCenter(wrapping: inner, addStall: Self.stall)
        let store = InMemoryKeyValueStore()
        let transport = RecordingTransport()
        let planB = plan("run-b/x", in: 3_600)
        transport.setPlans([plan("run-a/x", in: 3_600), planB])  // the launch's sync schedules A: its add stalls
        let client = try makeClient(center, store, transport)
        let activity = ActivityLog()
        await client.setActivityObserver { activity.record($0) }
        let launch = Task { await client.start() }
        let began = Date()
        while center.addsBegun == 0, Date().timeIntervalSince(began) < 5 { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertEqual(center.addsBegun, 1, "the sync's add holds the gate")

        let arrived = Date()
        let outcome = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: planB).jsonBytes))
        let took = Date().timeIntervalSince(arrived)
        XCTAssertEqual(outcome, .newData)
        XCTAssertLessThan(took, Self.budget + 0.5, "answered after \(took) s with a \(Self.budget) s budget, the gate held for \(Self.stall) s")
        XCTAssertTrue(activity.all.contains { if case .pushDeferred = $0 { true } else { false } })
        let kept = try store.value([[String: JSONValue]].self, forKey: "buzzkit.inbox")
        XCTAssertEqual(kept?.count, 1, "the push is persisted before the answer")

        // iOS ends the suspended app (the stalled change never finishes in it); the next launch
        // has what was on disk, and the same notification center.
        let disk = InMemoryKeyValueStore(Dictionary(uniqueKeysWithValues: try store.keys.map { ($0, try store.data(forKey: $0) ?? Data()) }))
        transport.clearRequests()
        let relaunched = try makeClient(inner, disk, transport)
        await relaunched.start()
        await relaunched.settle()
        let pending = await inner.pendingRequests().map(\.id).sorted()
        XCTAssertEqual(pending, ["run-a/x", "run-b/x"])
        let acknowledged = transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }.compactMap { $0.properties["localId"]?.stringValue }
        XCTAssertEqual(acknowledged.filter { $0 == "run-b/x" }.count, 1, "B acknowledged once: \(acknowledged)")
        let left = try disk.value([[String: JSONValue]].self, forKey: "buzzkit.inbox")
        XCTAssertEqual(left?.count ?? 0, 0, "applied, so gone from the inbox")
        let record = await relaunched.planBook.records["run-b/x"]
        XCTAssertEqual(record?.acknowledgmentConfirmed, true)
        await relaunched.shutdown()
        await launch.value
        await client.shutdown()
    }

    /// Forty pushes land at once on a phone whose center is slow and whose acknowledgments are
    /// refused: every one is answered by the budget, and when the last has answered no plan
    /// is left in the center (it would show beside the server's fallback while the app sleeps).
    func testABurstOfPushesIsAnsweredInTimeAndLeavesNoUnconfirmedPlanBehind() async throws {
        let inner = InMemoryNotificationCenter(clock: SystemClock(timeZone: TestPhone.berlin))
        let center = InstrumentedCenter(wrapping: inner, addStall: 0.1)
        let store = InMemoryKeyValueStore()
        let transport = RecordingTransport()
        transport.setRule { $0.method == "POST" ? .status(503) : nil }  // acknowledgments do not get through
        let client = try makeClient(center, store, transport)
        let activity = ActivityLog()
        await client.setActivityObserver { activity.record($0) }
        let plans = (0..<40).map { plan("run-\($0)/x", in: 3_600 + Double($0)) }
        transport.setPlans(plans)  // the server lists them all
        let payloads = plans.map { Payloads.members(SilentPlanPayload(local: $0).jsonBytes) }
        let answers = await withTaskGroup(of: TimeInterval.self) { group in
            for payload in payloads {
                group.addTask {
                    let arrived = Date()
                    _ = await client.handleRemoteNotification(payload: payload)
                    return Date().timeIntervalSince(arrived)
                }
            }
            return await group.reduce(into: [TimeInterval]()) { $0.append($1) }
        }
        XCTAssertEqual(answers.count, 40)
        XCTAssertLessThan(answers.max() ?? 0, Self.budget + 0.5, "the slowest answer took \(answers.max() ?? 0) s")
        let inFlight = await client.inFlightEventIds
        for request in await inner.pendingRequests() {
            let record = await client.planBook.records[request.id]
            XCTAssertTrue(record.map { $0.acknowledgmentConfirmed || $0.acknowledgmentUncertain || inFlight.contains($0.acknowledgmentEventId ?? "") } ?? false,
                          "\(request.id) is pending with an acknowledgment the server cannot have")
        }
        // The refusal of the acknowledgments in flight comes back; the deferred pushes are
        // applied: every plan is held, none left to show beside its fallback.
        try await Task.sleep(nanoseconds: 500_000_000)
        let pending = await inner.pendingRequests().map(\.id)
        XCTAssertEqual(pending, [])
        let held = await client.planBook.records.values.filter { $0.state == .held }.count
        XCTAssertEqual(held, 40)
        await client.shutdown()
    }
}
