import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A silent push (or a tap) that launches the app reaches BuzzKit even though it arrives
/// before the app configured it: it waits for the client (up to the source's limit) instead of
/// being answered `.noData` and lost, so the plan is scheduled and acknowledged.
final class ColdLaunchPushTests: XCTestCase {
    private struct Phone {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let center: InMemoryNotificationCenter
        let transport = RecordingTransport()
        let source: InMemoryPushEventSource
        let ports: BuzzKitPorts
        let configuration = TestPhone.configuration()

        init(waitLimit: TimeInterval) {
            center = InMemoryNotificationCenter(clock: clock)
            source = InMemoryPushEventSource(waitLimit: waitLimit)
            ports = BuzzKitPorts(notificationCenter: center, clock: clock, store: InMemoryKeyValueStore(),
                                 transport: transport, pushEvents: source, random: { 0 })
        }

        var plan: [String: JSONValue] {
            Payloads.plan("run-1/a", messageId: "m-1", fireAt: FireAt(instant: TestPhone.start.addingTimeInterval(600), in: TestPhone.berlin))
        }
    }

    func testAPushBeforeConfigureWaitsAndIsHandledOnceTheClientIsAttached() async throws {
        let phone = Phone(waitLimit: 2)
        let answered = Locked(false)
        let delivery = Task { () -> PushOutcome? in
            defer { answered.withLock { $0 = true } }
            return await phone.source.deliverRemoteNotification(payload: phone.plan)
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        XCTAssertFalse(answered.current, "answered before any client was there")

        // What `BuzzKit.configure(_:ports:)` does before it returns (the facade itself is not
        // used here: its shared instance cannot be reset and other tests expect none).
        let client = try BuzzKitClient(configuration: phone.configuration, ports: phone.ports)
        client.attachToPushEvents()
        XCTAssertTrue(phone.source.isAttached, "attached synchronously, before any await")
        Task { await client.start() }
        let outcome = await delivery.value
        XCTAssertEqual(outcome, .newData)
        await client.settle()
        let pending = await phone.center.pendingRequests()
        XCTAssertEqual(pending.map(\.id), ["run-1/a"])
        XCTAssertEqual(phone.transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }.count, 1)
        await client.shutdown()
    }

    func testAClientStartedLaterAlsoTakesTheWaitingPush() async throws {
        let phone = Phone(waitLimit: 2)
        let delivery = Task { await phone.source.deliverRemoteNotification(payload: phone.plan) }
        try await Task.sleep(nanoseconds: 100_000_000)
        let client = try BuzzKitClient(configuration: phone.configuration, ports: phone.ports)
        await client.start()  // attaches to the source
        let outcome = await delivery.value
        XCTAssertEqual(outcome, .newData)
        let pending = await phone.center.pendingRequests()
        XCTAssertEqual(pending.map(\.id), ["run-1/a"])
        await client.shutdown()
    }

    func testATapBeforeConfigureWaitsAndIsTracked() async throws {
        let phone = Phone(waitLimit: 2)
        let message = NotificationMessage(messageId: "m-7", localId: "run-7/a", deepLink: "gym://x")
        let opened = Locked<[String]>([])
        let delivery = Task { await phone.source.open(userInfo: message.userInfo) }
        try await Task.sleep(nanoseconds: 100_000_000)
        let client = try BuzzKitClient(configuration: phone.configuration, ports: phone.ports)
        await client.setOpenHandler { notification in opened.withLock { $0.append(notification.deepLink ?? "") } }
        phone.source.attach(client)
        let handled = await delivery.value
        XCTAssertTrue(handled)
        XCTAssertEqual(opened.current, ["gym://x"])
        let queued = await client.queuedEvents
        XCTAssertEqual(queued.map(\.event), [BuzzEvent.pushOpened])
        XCTAssertEqual(queued.first?.properties["messageId"], "m-7")
    }

    func testWithNoClientWithinTheLimitThePushIsAnsweredNil() async throws {
        let phone = Phone(waitLimit: 0.3)
        let began = Date()
        let outcome = await phone.source.deliverRemoteNotification(payload: phone.plan)
        let waited = Date().timeIntervalSince(began)
        XCTAssertNil(outcome)
        XCTAssertGreaterThanOrEqual(waited, 0.25, "it waited for a client")
        XCTAssertLessThan(waited, 2)

        // A client attached afterwards does not receive the abandoned push.
        let client = try BuzzKitClient(configuration: phone.configuration, ports: phone.ports)
        phone.source.attach(client)
        try await Task.sleep(nanoseconds: 100_000_000)
        let pending = await phone.center.pendingRequests()
        XCTAssertTrue(pending.isEmpty)
    }

    func testWithAClientAttachedThePushGoesStraightThrough() async throws {
        let phone = Phone(waitLimit: 2)
        let client = try BuzzKitClient(configuration: phone.configuration, ports: phone.ports)
        phone.source.attach(client)
        let began = Date()
        let outcome = await phone.source.deliverRemoteNotification(payload: phone.plan)
        XCTAssertEqual(outcome, .newData)
        XCTAssertLessThan(Date().timeIntervalSince(began), 1)
    }
}
