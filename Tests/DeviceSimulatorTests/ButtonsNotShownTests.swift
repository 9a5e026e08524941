import BuzzKitOnAppleModel
@testable import DeviceSimulator
import Foundation
import XCTest

/// iOS shows a notification's buttons only when the app registered its category (Apple,
/// `UNNotificationCategory`). A fallback for a plan that never reached the phone (its event
/// held up by an outage until the moment, say) comes with a category nothing registered there,
/// so the simulated person cannot choose a button on it: the drill once counted such a choice
/// as a button the SDK failed to track.
final class ButtonsNotShownTests: XCTestCase {
    private struct Unavailable: HTTPTransport {
        func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse { HTTPTransportResponse(status: 503) }
    }

    private let fallback: [String: JSONValue] = [
        "aps": ["alert": ["title": "Leg day", "body": "6:00 with Maya."], "category": "bk.0123456789abcdef"],
        "bk": ["messageId": "m-1", "localId": "run-1/nudge", "data": [:]],
    ]

    func testAFallbackWhosePlanNeverCameOffersNoButton() async throws {
        let configuration = FleetConfiguration(apiBaseURL: URL(string: "http://127.0.0.1:9")!, secretKey: "sk_test", publishableKey: "pk_test",
                                               signingSecret: "secret", mix: [.snoozer])
        let phone = try SimulatedPhone(subscriberId: "maya", behaviour: .snoozer, receivesSilentPushes: true, zone: "Europe/Berlin",
                                       configuration: configuration, transport: Unavailable())
        await phone.start()  // installed, opened once, left: suspended, as the drill's phones
        await phone.receiveAlert(fallback)
        XCTAssertEqual(phone.shown.map(\.id), ["run-1/nudge/fallback"])
        let chosen = await phone.choose("snooze", on: "run-1/nudge/fallback")
        XCTAssertFalse(chosen, "no button to choose")
        XCTAssertEqual(phone.locked { phone.actionsChosen }, 0, "not counted as a choice the SDK failed to track")
        XCTAssertTrue(phone.trace(around: Date()).contains { $0.contains("its plan never reached this phone") })
        await phone.stop()
    }

    /// The phone had the plan, so its buttons should be registered: a missing button is still
    /// counted as chosen (and, untracked, as the SDK's failure).
    func testAFallbackWhosePlanCameStillCountsTheChoice() async throws {
        let configuration = FleetConfiguration(apiBaseURL: URL(string: "http://127.0.0.1:9")!, secretKey: "sk_test", publishableKey: "pk_test",
                                               signingSecret: "secret", mix: [.snoozer])
        let phone = try SimulatedPhone(subscriberId: "maya", behaviour: .snoozer, receivesSilentPushes: true, zone: "Europe/Berlin",
                                       configuration: configuration, transport: Unavailable())
        await phone.start()
        phone.countPlan("run-1/nudge")
        await phone.receiveAlert(fallback)
        let chosen = await phone.choose("snooze", on: "run-1/nudge/fallback")
        XCTAssertTrue(chosen)
        XCTAssertEqual(phone.locked { phone.actionsChosen }, 1)
        await phone.stop()
    }
}
