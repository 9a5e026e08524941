import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// `track(name)` removes what the plans' `cancelOn` registered under `name`, at once and
/// offline, and the registry survives restarts.
final class CancelOnTests: XCTestCase {
    func testTrackRemovesRegisteredRequestsWhileOffline() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/nudge", in: 3_600, cancelOn: ["workout.completed", "workout.moved"])
        await phone.receivePlan("run-2/nudge", in: 3_600, cancelOn: ["other.event"])
        phone.network.setOnline(false)
        phone.transport.clearRequests()

        try await phone.client.track("workout.completed", properties: ["workoutId": "w1"])

        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-2/nudge"])
        XCTAssertTrue(phone.transport.requests.isEmpty, "offline: nothing reached the transport")
        let queued = await phone.client.queuedEvents
        XCTAssertEqual(queued.map(\.event), ["workout.completed"])
        XCTAssertEqual(queued.first?.properties, ["workoutId": "w1"])
        let registry = await phone.client.planBook.registry
        XCTAssertEqual(registry.eventNames, ["other.event"], "the removed plan's names are unregistered")
        XCTAssertTrue(phone.activity.all.contains(.notificationsCancelled(localIds: ["run-1/nudge"], trigger: .event("workout.completed"))))
        // Nothing fires later either.
        let shown = try await phone.advance(3_600)
        XCTAssertEqual(shown.map(\.id), ["run-2/nudge"])
    }

    func testAnEventThatCancelledSomethingIsFlushedAtOnceOthersWait() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/nudge", in: 3_600, cancelOn: ["workout.completed"])
        phone.transport.clearRequests()
        try await phone.client.track("app.opened")
        try await phone.waitIdle()
        XCTAssertTrue(phone.transport.requests.isEmpty, "an ordinary event waits for the flush delay")
        try await phone.client.track("workout.completed")
        try await phone.waitIdle()
        XCTAssertEqual(phone.transport.batches.map { $0.map(\.event) }, [["app.opened", "workout.completed"]])
    }

    func testUnregisteredNameRemovesNothing() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/nudge", in: 3_600, cancelOn: ["workout.completed"])
        try await phone.client.track("workout.started")
        let pending = await phone.pendingIds()
        XCTAssertEqual(pending, ["run-1/nudge"])
    }

    func testRegistryIsPersistedAcrossRestart() async throws {
        let phone = try await TestPhone()
        await phone.receivePlan("run-1/nudge", in: 3_600, cancelOn: ["workout.completed"])
        try await phone.restart()
        let registry = await phone.client.planBook.registry
        XCTAssertEqual(registry.localIds(for: "workout.completed"), ["run-1/nudge"])
        phone.network.setOnline(false)
        try await phone.client.track("workout.completed")
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
    }

    func testRegistryIsPersistedInTheStoreItself() async throws {
        let store = InMemoryKeyValueStore()
        let phone = try await TestPhone(store: store)
        await phone.receivePlan("run-1/nudge", in: 3_600, cancelOn: ["workout.completed"])
        let book = try XCTUnwrap(try store.value(PlanBook.self, forKey: "buzzkit.plans"))
        XCTAssertEqual(book.registry.localIds(for: "workout.completed"), ["run-1/nudge"])
        // The token and the phone's last install too: without a secrets store of its own (the
        // Keychain on iOS) they share this one.
        XCTAssertEqual(store.keys, ["buzzkit.events", "buzzkit.identity", "buzzkit.install-id", "buzzkit.last-install-on-phone", "buzzkit.plans",
                                    "buzzkit.subscriber-token"])
    }

    func testPlanArrivingAfterItsCancelEventIsNotScheduled() async throws {
        let phone = try await TestPhone()
        let payload = Payloads.plan("run-1/nudge", fireAt: phone.fireAt(in: 3_600), cancelOn: ["workout.completed"])
        await phone.client.handleRemoteNotification(payload: payload)
        try await phone.client.track("workout.completed")
        phone.transport.clearRequests()
        // APNs redelivers the plan push late (order is not guaranteed).
        let outcome = await phone.client.handleRemoteNotification(payload: payload)
        XCTAssertEqual(outcome, .noData)
        let pending = await phone.pendingIds()
        XCTAssertTrue(pending.isEmpty)
        XCTAssertEqual(phone.activity.rejections, [.alreadyCancelled])
        XCTAssertFalse(phone.postedNames.contains("$local.scheduled"))
    }

    func testReservedAndMalformedNamesAreRefused() async throws {
        let phone = try await TestPhone()
        for name in ["$local.scheduled", "", "has space", "a*b", "a#b", String(repeating: "x", count: 201)] {
            do {
                try await phone.client.track(name)
                XCTFail("\(name) was accepted")
            } catch let error as BuzzKitError {
                XCTAssertEqual(error.code, .invalidEvent)
            }
        }
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }
}
