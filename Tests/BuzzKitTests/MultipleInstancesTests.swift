import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Many independent SDK instances in one process (the device simulator's fleet), and the
/// shared-instance facade.
final class MultipleInstancesTests: XCTestCase {
    func testInstancesShareNothingButTheTransport() async throws {
        let transport = RecordingTransport()
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        var phones: [(client: BuzzKitClient, center: InMemoryNotificationCenter)] = []
        for index in 0..<20 {
            let center = InMemoryNotificationCenter(clock: clock)
            var configuration = Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test")!, publishableKey: "pk_t",
                                              subscriberId: "u_\(index)", subscriberToken: .fixed(TestPhone.token),
                                              pushTopic: "com.example.gym")
            configuration.deviceToken = String(format: "%064x", index + 1)
            let client = try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(
                notificationCenter: center, clock: clock, store: InMemoryKeyValueStore(), transport: transport))
            phones.append((client, center))
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, phone) in phones.enumerated() {
                group.addTask {
                    await phone.client.start()
                    let fireAt = FireAt(instant: TestPhone.start.addingTimeInterval(60), in: TestPhone.berlin)
                    _ = await phone.client.handleRemoteNotification(payload: Payloads.plan("run-\(index)/a", fireAt: fireAt,
                                                                                           cancelOn: ["done"]))
                }
            }
        }
        try await phones[3].client.track("done")  // only phone 3 cancels
        clock.advance(by: 60)
        var shown: [String] = []
        for phone in phones { shown += await phone.center.fireDue().map(\.id) }
        XCTAssertEqual(shown.count, 19)
        XCTAssertFalse(shown.contains("run-3/a"))
        let registrations = transport.requests.filter { $0.method == "PUT" }.map(\.url.path)
        XCTAssertEqual(Set(registrations).count, 20)
        let acks = transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }
        XCTAssertEqual(Set(acks.map(\.subscriberId)).count, 20)
    }

    func testFacadeNeedsConfigurationThenForwards() async throws {
        do {
            try await BuzzKit.track("e.1")
            XCTFail("tracked before configure")
        } catch let error as BuzzKitError {
            XCTAssertEqual(error.code, .notConfigured)
        }
        let outcome = await BuzzKit.didReceiveRemoteNotification(userInfo: ["aps": ["content-available": 1]])
        XCTAssertEqual(outcome, .noData)

        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock)
        let transport = RecordingTransport()
        let configuration = TestPhone.configuration()
        let client = try BuzzKit.configure(configuration, ports: BuzzKitPorts(
            notificationCenter: center, clock: clock, store: InMemoryKeyValueStore(), transport: transport))
        XCTAssertTrue(BuzzKit.shared === client)
        let payload: [AnyHashable: Any] = JSONValue.foundationObject(Payloads.plan("run-1/a", fireAt: FireAt(
            instant: TestPhone.start.addingTimeInterval(600), in: TestPhone.berlin), cancelOn: ["done"]))
        let scheduled = await BuzzKit.didReceiveRemoteNotification(userInfo: payload)
        XCTAssertEqual(scheduled, .newData)
        try await BuzzKit.track("done")
        let pending = await center.pendingRequests()
        XCTAssertTrue(pending.isEmpty)
        await BuzzKit.flush()
        await client.settle()
        XCTAssertEqual(transport.postedEvents.map(\.event), ["$local.scheduled", "done"])
    }
}
