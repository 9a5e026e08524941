import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A plan's last send, decided at its acknowledgment deadline, must be made before anything
/// judges it failed. Seen in the fleet all at once: a crowded phone opened 2 s before its
/// moments; one pass decided the last sends, the next pass ran before the first pass's tick had
/// started the flush, found no flush under way and withdrew eight plans. Four of them the
/// server had counted (their acknowledgment was cut off by a suspension 300 s earlier), so no
/// fallback came, and the person never saw them.
final class LastSendRaceTests: XCTestCase {
    func testAPassRightAfterTheLastSendWasDecidedLeavesThePlanToThatSend() async throws {
        let phone = try await TestPhone()
        phone.transport.script(.status(503), .status(503))
        await phone.receivePlan("run-1/a", in: 60, messageId: "m-1")  // the first send fails: retry at +2
        try await phone.advance(2)  // fails again: retry at +6
        phone.transport.script(.status(503), .status(503), .status(503))
        try await phone.advance(4)
        try await phone.advance(8)
        try await phone.advance(16)  // the backoff now reaches past the deadline (+55)
        let retry = await phone.client.nextRetryDate
        XCTAssertGreaterThan(retry ?? .distantPast, TestPhone.start.addingTimeInterval(55.5))

        // The deadline passes; two passes run back to back (the second queued behind the first).
        await phone.client.deadlinePassesBackToBack(setting: phone.clock, to: TestPhone.start.addingTimeInterval(55.3))
        try await phone.waitIdle()

        XCTAssertFalse(phone.activity.all.contains { if case .planWithdrawn = $0 { true } else { false } },
                       "withdrawn before its last send was made")
        let record = await phone.client.planBook.records["run-1/a"]
        XCTAssertEqual(record?.acknowledgmentConfirmed, true, "the last send got through")
        let shown = try await phone.advance(5)
        XCTAssertEqual(shown.map(\.id), ["run-1/a"], "shown once, by the phone")
    }
}

extension BuzzKitClient {
    /// Moves `clock` to `instant` and runs two acknowledgment-deadline passes with nothing in
    /// between (the SDK's timer, woken by the clock, waits for this actor).
    func deadlinePassesBackToBack(setting clock: ManualClock, to instant: Date) async {
        clock.set(to: instant)
        await processAcknowledgmentDeadlines()
        await processAcknowledgmentDeadlines()
    }
}
