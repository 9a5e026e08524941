import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import PushDelivery
import XCTest

/// Deleting the app deletes its local notifications, but the server heard them acknowledged.
/// Each install registers with its own `installId`: when a new install registers the same
/// token, what the old install acknowledged for windows still ahead no longer counts, and the
/// fallback covers them. The same install registering again changes nothing.
class ReinstallTests: InMemoryAPITestCase {
    private func register(_ token: String, install: String, replacing: String? = nil, expect status: Int = 200) async throws {
        var body = ["platform": "ios", "token": token, "topic": "com.example.gym", "installId": install]
        body["replacesInstallId"] = replacing
        try await call("PUT", "/v1/subscribers/maya/devices", body, device: "maya", expect: status)
    }

    private func acknowledgedWindow() async throws -> String {
        try await putLegDay()
        try await call("PUT", "/v1/subscribers/maya", ["timezone": "Europe/Berlin"], expect: 200)
        let token = String(repeating: "ab", count: 32)
        try await register(token, install: "install-a")
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: try XCTUnwrap(pushes(to: token, .background).last).payload).local
        try await call("POST", "/v1/events", ["event": BuzzEvent.localScheduled, "subscriberId": "maya", "timestamp": RFC3339.format(clock.now),
                                              "properties": ["localId": plan.id, "messageId": plan.messageId, "device": token]],
                       device: "maya", expect: 202)
        try workers.runUntilIdle()
        return token
    }

    private func passTheMoment() throws {
        clock.advance(by: 21 * 3600 + 60)
        try workers.runUntilIdle()
        try workers.runUntilIdle()
    }

    func testANewInstallOnTheSameTokenGetsTheFallbackOfWhatTheOldOneAcknowledged() async throws {
        let token = try await acknowledgedWindow()
        try await register(token, install: "install-b")  // the app was deleted and installed again
        try passTheMoment()
        XCTAssertEqual(pushes(to: token, .alert).count, 1, "the fallback: the deleted app's notification went with it")
    }

    /// The same, when the run was rewritten after the acknowledgment (an event it listens to,
    /// here a move of another workout): the run had learnt "acknowledged", and the decision at
    /// the moment still follows the acknowledgments as they stand then.
    func testANewInstallGetsTheFallbackAfterTheRunLearntTheOldAcknowledgment() async throws {
        let token = try await acknowledgedWindow()
        try await call("POST", "/v1/events", ["event": "workout.moved", "subscriberId": "maya", "properties": ["workoutId": "another"]],
                       expect: 202)
        try workers.runUntilIdle()
        try await register(token, install: "install-b")
        try passTheMoment()
        XCTAssertEqual(pushes(to: token, .alert).count, 1, "the fallback: the deleted app's notification went with it")
    }

    func testTheSameInstallRegisteringAgainKeepsItsAcknowledgment() async throws {
        let token = try await acknowledgedWindow()
        try await register(token, install: "install-a")  // every launch registers
        try passTheMoment()
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "the phone shows its own")
    }

    /// The app deleted and installed again with a new token (iOS issues one): the new install
    /// names the one it replaced (its Keychain outlived the app), so the old token's
    /// acknowledgment no longer counts, the old token gets nothing more, and the fallback goes
    /// to the new install, which had not acknowledged yet (`make chaos`: its acknowledgment
    /// met an outage, and the reminder was never shown).
    func testANewInstallWithANewTokenRetiresTheInstallItReplaced() async throws {
        let old = try await acknowledgedWindow()
        let new = String(repeating: "cd", count: 32)
        try await register(new, install: "install-b", replacing: "install-a")
        try passTheMoment()
        XCTAssertEqual(pushes(to: new, .alert).count, 1, "the fallback reaches the new install")
        XCTAssertEqual(pushes(to: old, .alert).count, 0, "nothing more to the deleted app's token")
    }

    /// Another phone of the same person registering (its own install, replacing nothing) leaves
    /// the first phone's acknowledgment alone: that phone shows its own.
    func testAnotherPhoneRegisteringKeepsTheFirstPhonesAcknowledgment() async throws {
        let first = try await acknowledgedWindow()
        try await register(String(repeating: "cd", count: 32), install: "install-b")
        try passTheMoment()
        XCTAssertEqual(pushes(to: first, .alert).count, 0)
        XCTAssertEqual(pushes(to: String(repeating: "cd", count: 32), .alert).count, 0, "acknowledged by a device of the subscriber")
    }

    func testAnInstallIdIsLettersDigitsAndDashes() async throws {
        try await register(String(repeating: "ab", count: 32), install: "no spaces", expect: 400)
        try await register(String(repeating: "ab", count: 32), install: "install-a", replacing: "", expect: 400)
    }
}
