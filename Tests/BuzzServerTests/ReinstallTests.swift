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
final class ReinstallTests: InMemoryAPITestCase {
    private func register(_ token: String, install: String, expect status: Int = 200) async throws {
        try await call("PUT", "/v1/subscribers/maya/devices", ["platform": "ios", "token": token, "topic": "com.example.gym", "installId": install],
                       device: "maya", expect: status)
    }

    private func acknowledgedWindow() async throws -> String {
        try await putLegDay()
        try await call("PUT", "/v1/subscribers/maya", ["timezone": "Europe/Berlin"], expect: 200)
        let token = String(repeating: "ab", count: 32)
        try await register(token, install: "install-a")
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: try XCTUnwrap(pushes(to: token, .background).last).payload).local
        try await call("POST", "/v1/events", ["event": BuzzEvent.localScheduled, "subscriberId": "maya", "timestamp": RFC3339.format(clock.now()),
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

    func testTheSameInstallRegisteringAgainKeepsItsAcknowledgment() async throws {
        let token = try await acknowledgedWindow()
        try await register(token, install: "install-a")  // every launch registers
        try passTheMoment()
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "the phone shows its own")
    }

    func testAnInstallIdIsLettersDigitsAndDashes() async throws {
        try await register(String(repeating: "ab", count: 32), install: "no spaces", expect: 400)
    }
}
