import BuzzKitOnAppleModel
@testable import DeviceSimulator
import Foundation
import XCTest

/// iOS kills a deleted app's process, a launch under way included: the new install is the
/// only app that runs. A waves run of the fleet had a silent push launch the reclaimed app
/// 0.04 s before the person deleted and reinstalled it; that launch went on and ran beside the
/// new install's, both SDKs scheduled the plan, and the person saw the reminder twice.
final class ReinstallDuringLaunchTests: XCTestCase {
    /// Every request refused for now: the SDKs retry later, nothing else happens.
    private struct Unavailable: HTTPTransport {
        func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse { HTTPTransportResponse(status: 503) }
    }

    private func until(_ what: String, _ condition: @escaping () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting for \(what)") }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    func testAnAppDeletedWhileASilentPushLaunchesItLeavesOnlyTheNewInstallRunning() async throws {
        let configuration = FleetConfiguration(apiBaseURL: URL(string: "http://127.0.0.1:9")!, secretKey: "sk_test", publishableKey: "pk_test",
                                               signingSecret: "secret", mix: [.reinstalled])
        let phone = try SimulatedPhone(subscriberId: "maya", behaviour: .reinstalled, receivesSilentPushes: true, zone: "Europe/Berlin",
                                       configuration: configuration, transport: Unavailable())
        // The main queue is busy (as under the fleet's load): every launch waits there, so the
        // push's launch is still under way when the person deletes the app.
        let busy = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { busy.wait() }
        // No process (iOS reclaimed the suspended app): the silent push launches it.
        let push = Task.detached { await phone.receiveSilent(["aps": ["content-available": 1]]) }
        try await until("the push's launch") { phone.locked { phone.launching != nil } }
        await phone.reinstall()
        let open = Task.detached { await phone.open(stay: nil) }
        try await until("the new install's launch") { phone.locked { phone.launching != nil } }
        busy.signal()
        await open.value
        await push.value

        let launches = phone.trace(around: Date()).filter { $0.contains("app launched") }
        XCTAssertEqual(launches.count, 1, "one app runs: \(phone.trace(around: Date()))")
        XCTAssertTrue(launches.first?.hasSuffix("app launched (install 2)") == true, "the new install's: \(launches)")
        let running = try XCTUnwrap(phone.locked { phone.process })
        XCTAssertTrue(running.gate.isRunning)
        XCTAssertEqual(phone.trace(around: Date()).filter { $0.contains("a launch under way ended") }.count, 1,
                       "the deleted app's launch ended with its process")
        await phone.stop()
    }
}
