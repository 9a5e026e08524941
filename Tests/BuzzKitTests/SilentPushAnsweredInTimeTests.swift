import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A silent push is answered within ``Configuration/backgroundBudget`` even when the network or
/// the server hangs (iOS gives an app about 30 s and throttles apps that take longer, so late
/// answers would cost the next pushes). What did not get through stays persisted and goes out
/// at the next wake.
final class SilentPushAnsweredInTimeTests: XCTestCase {
    private static let hang: TimeInterval = 2.5

    /// A client on the real clock with the given budget, its ports and its transport.
    private func realClockClient(budget: TimeInterval) throws -> (BuzzKitClient, BuzzKitPorts, RecordingTransport) {
        let clock = SystemClock(timeZone: TestPhone.berlin)
        let transport = RecordingTransport()
        var configuration = Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test")!, publishableKey: "pk_t",
                                          subscriberId: "u_123", subscriberToken: .fixed(TestPhone.token), pushTopic: "t")
        configuration.backgroundBudget = budget
        let ports = BuzzKitPorts(notificationCenter: InMemoryNotificationCenter(clock: clock), clock: clock,
                                 store: InMemoryKeyValueStore(), transport: transport, random: { 0 })
        return (try BuzzKitClient(configuration: configuration, ports: ports), ports, transport)
    }

    /// Every acknowledgment and sync request hangs for 2.5 s, then times out.
    private func hangEverything(_ transport: RecordingTransport) {
        transport.setRule { request in
            request.method == "POST" || request.method == "GET" ? .delayed(Self.hang, .timeout) : nil
        }
    }

    func testOnTheRealClockThePushIsAnsweredWithinTheBudgetAndTheAcknowledgmentSurvivesToTheNextLaunch() async throws {
        let clock = SystemClock(timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock)
        let store = InMemoryKeyValueStore()
        let transport = RecordingTransport()
        var configuration = Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test")!, publishableKey: "pk_t",
                                          subscriberId: "u_123", subscriberToken: .fixed(TestPhone.token), pushTopic: "t")
        configuration.backgroundBudget = 0.2
        let ports = BuzzKitPorts(notificationCenter: center, clock: clock, store: store, transport: transport, random: { 0 })
        let client = try BuzzKitClient(configuration: configuration, ports: ports)
        await client.start()  // launched in the background for the push
        hangEverything(transport)

        let fireAt = FireAt(instant: clock.now.addingTimeInterval(3_600), in: TestPhone.berlin)
        let payload = Payloads.plan("run-1/a", fireAt: fireAt)
        if case .plan(let plan) = IncomingPush(payload: payload) { transport.addPlan(plan) }  // the server lists it
        let began = Date()
        let outcome = await client.handleRemoteNotification(payload: payload)
        let took = Date().timeIntervalSince(began)
        XCTAssertEqual(outcome, .newData)
        XCTAssertLessThan(took, 1.5, "answered after \(took) s, with a 0.2 s budget and a network hanging for \(Self.hang) s")
        XCTAssertGreaterThanOrEqual(transport.eventRequests.count, 1, "the acknowledgment was on its way")

        // Persisted: a relaunch (iOS may kill the suspended app) still has it.
        let persisted = try store.value(EventQueue.self, forKey: "buzzkit.events")
        XCTAssertEqual(persisted?.events.map(\.event), [BuzzEvent.localScheduled])
        await client.shutdown()  // the app goes away; the hanging request ends in a timeout

        transport.setRule(nil)
        transport.clearRequests()
        let relaunched = try BuzzKitClient(configuration: configuration, ports: ports)
        await relaunched.start()
        XCTAssertEqual(transport.postedEvents.map(\.event), [BuzzEvent.localScheduled], "sent at the next wake")
        XCTAssertEqual(transport.postedEvents.first?.properties["localId"], "run-1/a")
        let queued = await relaunched.queuedEvents
        XCTAssertTrue(queued.isEmpty)
        let record = await relaunched.planBook.records["run-1/a"]
        XCTAssertEqual(record?.acknowledgmentConfirmed, true)
        await relaunched.shutdown()
    }

    /// The budget runs from when iOS handed the push over, not from when the SDK got to it: a
    /// push that waited for the app's launch and `configure` has only the rest of it.
    func testTheBudgetCountsFromThePushsArrivalNotFromWhenTheSDKGotToIt() async throws {
        let (client, ports, transport) = try realClockClient(budget: 1.5)
        let clock = ports.clock
        await client.start()
        hangEverything(transport)
        let payload = Payloads.plan("run-1/a", fireAt: FireAt(instant: clock.now.addingTimeInterval(3_600), in: TestPhone.berlin))
        let arrived = clock.now.addingTimeInterval(-1.4)  // the launch and `configure` took 1.4 s of iOS's time
        let began = Date()
        _ = await client.handleRemoteNotification(payload: payload, receivedAt: arrived)
        let took = Date().timeIntervalSince(began)
        XCTAssertLessThan(took, 0.7, "answered \(took) s after the SDK got it, when 0.1 s of the 1.5 s budget was left")
        let applied = try ports.store.value(PlanBook.self, forKey: "buzzkit.plans")?.records["run-1/a"] != nil
        let deferred = try ports.store.value([[String: JSONValue]].self, forKey: "buzzkit.inbox")?.isEmpty == false
        XCTAssertTrue(applied || deferred, "the push is kept: applied, or persisted for the next wake")
        await client.shutdown()
    }

    func testOnAManualClockThePushReturnsWhenTheBudgetRunsOutAndTheAcknowledgmentGoesOutLater() async throws {
        let phone = try await TestPhone(foreground: false)  // budget 20 s
        hangEverything(phone.transport)
        let client = phone.client
        let plan = phone.plan("run-1/a", in: 3_600)
        phone.transport.addPlan(plan)
        let payload = Payloads.members(SilentPlanPayload(local: plan).jsonBytes)
        let began = Date()
        let answer = Task { await client.handleRemoteNotification(payload: payload) }
        // Wait (real time) until the acknowledgment is on the wire, then let the budget run out.
        while phone.transport.eventRequests.isEmpty, Date().timeIntervalSince(began) < 5 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        XCTAssertFalse(phone.transport.eventRequests.isEmpty)
        phone.clock.advance(by: 20)
        let outcome = await answer.value
        let took = Date().timeIntervalSince(began)
        XCTAssertEqual(outcome, .newData)
        XCTAssertLessThan(took, Self.hang, "answered at the budget, not when the network gave up")
        let queued = await phone.client.queuedEvents
        XCTAssertEqual(queued.map(\.event), [BuzzEvent.localScheduled], "still queued")

        // The hanging requests give up; the next wake, ten minutes later, sends it.
        phone.transport.setRule(nil)
        await phone.client.settle()
        phone.transport.clearRequests()
        phone.clock.advance(by: 600)
        await phone.receivePlan("run-2/a", in: 3_600)
        XCTAssertEqual(Set(phone.acknowledgedIds), ["run-1/a", "run-2/a"])
        let book = await phone.client.planBook
        XCTAssertEqual(book.records["run-1/a"]?.acknowledgmentConfirmed, true)
        XCTAssertEqual(book.records["run-2/a"]?.acknowledgmentConfirmed, true)
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/a", "run-2/a"])
    }

    func testAHangingSyncAloneDoesNotHoldUpTheAnswer() async throws {
        let (client, _, transport) = try realClockClient(budget: 0.2)
        transport.setRule { $0.method == "GET" ? .delayed(Self.hang, .status(200, body: "{\"plans\": []}")) : nil }
        let began = Date()
        let outcome = await client.handleRemoteNotification(payload: Payloads.cancel("run-1"))
        XCTAssertEqual(outcome, .noData)
        XCTAssertLessThan(Date().timeIntervalSince(began), 1.5)
        XCTAssertEqual(transport.syncRequests.count, 1)
        await client.shutdown()
    }
}
