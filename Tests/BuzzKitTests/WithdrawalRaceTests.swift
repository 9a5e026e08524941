import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Issue 45, race 2 (a crowded reminder never shown, the fleet all at once): a plan whose
/// acknowledgment missed its deadline is withdrawn, and while iOS removes its request a flush
/// starts (a tick that had joined an earlier pass). The flush must not carry the withdrawn
/// plan's acknowledgment: the server would count it and send no fallback, and the phone no
/// longer holds the plan, so nobody sees the reminder.
final class WithdrawalRaceTests: XCTestCase {
    func testAFlushStartingWhileAPlanIsWithdrawnDoesNotLeaveTheServerCountingOnIt() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let inner = InMemoryNotificationCenter(clock: clock)
        let center = InstrumentedCenter(wrapping: inner)
        let transport = RecordingTransport()
        let network = NetworkConditionedTransport(wrapping: transport, online: false)
        let configuration = TestPhone.configuration(subscriberId: "u_123")
        let client = try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(
            notificationCenter: center, clock: clock, store: InMemoryKeyValueStore(), transport: network, random: { 0 }))
        await client.start()
        await client.applicationDidBecomeActive()
        let fireAt = FireAt(instant: clock.now.addingTimeInterval(60), in: TestPhone.berlin)
        let outcome = await client.handleRemoteNotification(payload: Payloads.plan("run-1/dose", fireAt: fireAt))
        XCTAssertEqual(outcome, .newData, "scheduled; its acknowledgment cannot get out (offline)")
        try await waitUntil { await client.flight == nil }

        // Two seconds past the acknowledgment deadline (5 s before the moment), past the last
        // send: the timer's pass withdraws the plan. The network is back.
        network.setOnline(true)
        center.holdRemovals()
        clock.set(to: TestPhone.start.addingTimeInterval(57))
        try await waitUntil { center.heldRemovals > 0 }
        await client.startFlight()  // the flush that starts while iOS removes the request
        try await waitUntil { await client.flight == nil }
        center.releaseRemovals()
        try await waitUntil { await client.isIdle }

        let pending = await inner.pendingRequests().map(\.id)
        XCTAssertFalse(pending.contains("run-1/dose"), "withdrawn: the fallback is the one shown")
        let names = transport.postedEvents.filter { $0.properties["localId"]?.stringValue == "run-1/dose" }.map(\.event)
        XCTAssertTrue(!names.contains(BuzzEvent.localScheduled) || names.contains(BuzzEvent.localReleased),
                      "the server got the acknowledgment of a plan the phone no longer holds, and no release: \(names)")
        XCTAssertFalse(names.contains(BuzzEvent.localScheduled), "the acknowledgment left the queue with the withdrawal")
        await client.shutdown()
    }

    private func waitUntil(_ condition: () async -> Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = Date().addingTimeInterval(5)
        while !(await condition()) {
            if Date() > deadline { return XCTFail("timed out", file: file, line: line) }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}
