import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// `automaticPushHandling`: on, the client attaches to the platform's push events; off, the
/// app forwards them.
final class PushHandlingTests: XCTestCase {
    func testAutomaticHandlingReceivesPushesTapsAndTokens() async throws {
        let phone = try await TestPhone()
        let attached = await phone.source.isAttached
        XCTAssertTrue(attached)
        let outcome = await phone.source.deliverRemoteNotification(payload: Payloads.plan("run-1/a", fireAt: phone.fireAt(in: 600)))
        XCTAssertEqual(outcome, .newData)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
        let tapped = await phone.source.open(userInfo: NotificationMessage(messageId: "m-1").userInfo)
        XCTAssertTrue(tapped)
        let queued = await phone.client.queuedEvents
        XCTAssertEqual(queued.map(\.event), ["$push.opened"])
        await phone.source.updateDeviceToken(TestPhone.deviceToken)
        let registered = await phone.client.registeredDevice
        XCTAssertEqual(registered?.token, TestPhone.deviceToken)
    }

    func testManualHandlingLeavesForwardingToTheApp() async throws {
        let phone = try await TestPhone { $0.automaticPushHandling = false }
        let outcome = await phone.source.deliverRemoteNotification(payload: Payloads.plan("run-1/a", fireAt: phone.fireAt(in: 600)))
        XCTAssertNil(outcome, "nobody attached: the app must forward")
        var pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        let forwarded = await phone.client.handleRemoteNotification(payload: Payloads.plan("run-1/a", fireAt: phone.fireAt(in: 600)))
        XCTAssertEqual(forwarded, .newData)
        pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a"])
    }

    func testShutdownDetachesAndSetsNoMoreTimers() async throws {
        let phone = try await TestPhone()
        phone.transport.setFallback(.status(503))
        try await phone.client.track("e.1")
        await phone.client.flush()
        let armed = await phone.client.nextWakeUp
        XCTAssertNotNil(armed, "a retry is scheduled")
        await phone.client.shutdown()
        let attached = await phone.source.isAttached
        XCTAssertFalse(attached)
        let wakeUp = await phone.client.nextWakeUp
        XCTAssertNil(wakeUp)
        try await phone.advance(3_600)
        XCTAssertEqual(phone.transport.eventRequests.count, 1, "a shut-down instance does not retry by itself")
    }

    func testUserInfoConversionKeepsJSONTypes() throws {
        let userInfo: [AnyHashable: Any] = ["b": true, "i": 3, "d": 1.5, "s": "x", "n": NSNull(), "a": [1, "two"], "o": ["k": false]]
        let members = try JSONValue.members(userInfo: userInfo)
        XCTAssertEqual(members, ["b": true, "i": 3, "d": 1.5, "s": "x", "n": nil, "a": [1, "two"], "o": ["k": false]])
        XCTAssertThrowsError(try JSONValue.members(userInfo: [1: "numeric key"]))
        // With a null inside, what goes back to iOS is JSON text (a property list), read back the same.
        XCTAssertEqual(try JSONValue.members(userInfo: JSONValue.foundationObject(members)), members)
        var plain = members
        plain["n"] = nil
        XCTAssertEqual(JSONValue.foundationObject(plain)["s"] as? String, "x")
    }
}
