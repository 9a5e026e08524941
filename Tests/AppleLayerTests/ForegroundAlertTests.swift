import AppleModelCore
import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import UIKit
import UserNotifications
import XCTest

/// A BuzzKit alert arriving while the app is on screen is shown without waiting for a busy SDK.
final class ForegroundAlertTests: XCTestCase {
    /// The SDK is busy (here: not attached yet, so the alert's hand-over waits a minute for it).
    /// The notification delegate answers iOS within ``NotificationResponseForwarder/presentationWait``
    /// all the same: before, it waited for the SDK, and in the 10,000-phone fleet a person who
    /// left the app meanwhile never saw a fallback.
    func testAFallbackIsPresentedWhileTheSDKIsBusy() async throws {
        let device = ModelDevice(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        device.appInForeground = true
        let center = UNUserNotificationCenter(modelDevice: device)
        let forwarder = await MainActor.run { NotificationResponseForwarder(relay: PushEventRelay(waitLimit: 60)) }
        await MainActor.run { center.delegate = forwarder }
        let fallback = AlertPayload(title: "Leg day", body: "6:00 with Maya.", messageId: "msg-fallback", localId: "run-1/nudge",
                                    deepLink: nil, data: [:])
        let delivery = Task { await center.modelDeliverRemote(identifier: "run-1/nudge/fallback", title: "Leg day", body: "6:00 with Maya.",
                                                              userInfo: ModelPhone.userInfo(fallback)) }
        let began = Date()
        while await center.deliveredNotifications().isEmpty, Date().timeIntervalSince(began) < 5 {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let delivered = await center.deliveredNotifications()
        XCTAssertEqual(delivered.map(\.request.identifier), ["run-1/nudge/fallback"], "shown while the SDK was still busy")
        delivery.cancel()
        XCTAssertEqual(device.violations, [])
        _ = forwarder
    }
}
