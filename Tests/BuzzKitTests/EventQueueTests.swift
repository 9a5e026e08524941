import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The event queue: persisted, batched, ordered, bounded.
final class EventQueueTests: XCTestCase {
    func testQueueSurvivesARestartAndIsSentWithTheSameIds() async throws {
        let phone = try await TestPhone()
        phone.network.setOnline(false)
        try await phone.client.track("a.one")
        try await phone.client.track("a.two")
        try await phone.client.track("a.three")
        let before = await phone.client.queuedEvents
        XCTAssertEqual(before.count, 3)

        phone.network.setOnline(true)
        try await phone.restart()  // the start flushes what the last launch queued
        XCTAssertEqual(phone.transport.postedEvents.map(\.event), ["a.one", "a.two", "a.three"])
        XCTAssertEqual(phone.transport.postedEvents.map(\.id), before.map(\.id))
        let after = await phone.client.queuedEvents
        XCTAssertTrue(after.isEmpty)
    }

    func testEventsArePostedInBatchesInOrder() async throws {
        let phone = try await TestPhone { $0.eventBatchSize = 3 }
        phone.network.setOnline(false)
        for index in 1...7 { try await phone.client.track("e.\(index)") }
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        XCTAssertEqual(phone.transport.batches.map(\.count), [3, 3, 1])
        XCTAssertEqual(phone.transport.postedEvents.map(\.event), (1...7).map { "e.\($0)" })
        let body = try XCTUnwrap(phone.transport.eventRequests.first?.body)
        let object = try JSONDecoder().decode([String: JSONValue].self, from: body)
        XCTAssertEqual(Array(object.keys), ["events"], "the body is {\"events\": [...]}")
    }

    func testOrdinaryEventsWaitForTheFlushDelay() async throws {
        let phone = try await TestPhone { $0.eventFlushDelay = 5 }
        try await phone.client.track("app.opened")
        try await phone.advance(4)
        XCTAssertTrue(phone.transport.requests.isEmpty)
        try await phone.advance(1)
        XCTAssertEqual(phone.postedNames, ["app.opened"])
    }

    func testAFullBatchIsFlushedWithoutWaiting() async throws {
        let phone = try await TestPhone { $0.eventBatchSize = 2 }
        try await phone.client.track("e.1")
        try await phone.waitIdle()
        XCTAssertTrue(phone.transport.requests.isEmpty)
        try await phone.client.track("e.2")
        try await phone.waitIdle()
        XCTAssertEqual(phone.transport.batches.map(\.count), [2])
    }

    func testEventTimestampIsTheDeviceClockAtTrackTime() async throws {
        let phone = try await TestPhone()
        phone.clock.advance(by: 42)
        try await phone.client.track("e.1")
        await phone.client.flush()
        XCTAssertEqual(phone.transport.postedEvents.first?.timestamp, TestPhone.start.addingTimeInterval(42))
        XCTAssertEqual(phone.transport.postedEvents.first?.subscriberId, "u_123")
    }

    func testFullQueueDropsTheOldestSparingAcknowledgments() {
        var queue = EventQueue()
        let ack = BuzzEvent(id: "ack", event: BuzzEvent.localScheduled, subscriberId: "u", timestamp: TestPhone.start)
        XCTAssertTrue(queue.append(ack, maximum: 2).isEmpty)
        XCTAssertTrue(queue.append(BuzzEvent(id: "a", event: "a", subscriberId: "u", timestamp: TestPhone.start), maximum: 2).isEmpty)
        let dropped = queue.append(BuzzEvent(id: "b", event: "b", subscriberId: "u", timestamp: TestPhone.start), maximum: 2)
        XCTAssertEqual(dropped.map(\.id), ["a"])
        XCTAssertEqual(queue.events.map(\.id), ["ack", "b"])
    }

    func testQueueLimitIsEnforcedByTheClient() async throws {
        let phone = try await TestPhone { $0.maximumQueuedEvents = 3 }
        phone.network.setOnline(false)
        for index in 1...5 { try await phone.client.track("e.\(index)") }
        let queued = await phone.client.queuedEvents
        XCTAssertEqual(queued.map(\.event), ["e.3", "e.4", "e.5"])
        XCTAssertTrue(phone.activity.all.contains { if case .eventsDropped(_, let error) = $0 { return error.code == .queueFull } else { return false } })
    }
}
