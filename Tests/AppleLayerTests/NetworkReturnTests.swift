import AppleModelCore
import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import UIKit
import UserNotifications
import XCTest

/// The network coming back while the app is in the background: BuzzKit's work for it runs
/// inside a background task, so iOS does not suspend the app halfway (a silent push's wake
/// that answers meanwhile no longer takes the app down with plans put back and their
/// acknowledgments unsent; a 10,000-phone fleet showed a reminder twice that way).
@MainActor
final class NetworkReturnTests: XCTestCase {
    func testWorkForTheNetworkComingBackHoldsABackgroundTaskUntilItIsDone() async throws {
        let phone = ModelPhone(zone: TimeZone(identifier: "Europe/Berlin")!)
        phone.launch(foreground: false)
        let registered = await phone.server.wait("device registration") { server in
            server.received.contains { $0.method != "GET" && $0.path.contains("/devices") }
        }
        XCTAssertTrue(registered)
        await phone.application.modelWhenIdle()
        XCTAssertFalse(phone.application.modelIsRunning, "suspended: nothing holds the app")
        var changes: [Bool] = []
        phone.application.modelOnRunningChange = { changes.append($0) }
        phone.network.set(up: false)
        phone.network.set(up: true)
        let deadline = Date().addingTimeInterval(3)
        while changes.count < 2, Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertEqual(changes, [true, false], "a background task kept the app running for the SDK's work, and ended when it was done")
        XCTAssertTrue(phone.server.received.contains { $0.method == "GET" && $0.path.hasSuffix("/plans") }, "the work ran: a sync")
        XCTAssertEqual(phone.device.violations, [], "the task ended before iOS's expiration")
    }
}
