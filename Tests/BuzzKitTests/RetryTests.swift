import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Failed flushes back off exponentially, keep every event, and never storm.
final class RetryTests: XCTestCase {
    func testServerErrorsBackOffExponentiallyWithoutAStorm() async throws {
        let phone = try await TestPhone()  // 2 s, ×2, jitter drawn as 0
        phone.transport.setFallback(.status(503, body: "{\"error\":{\"code\":\"broker_unavailable\",\"message\":\"retry\"}}"))
        try await phone.client.track("e.1")
        await phone.client.flush()
        XCTAssertEqual(phone.transport.eventRequests.count, 1)
        let firstRetry = await phone.client.nextRetryDate
        XCTAssertEqual(firstRetry, TestPhone.start.addingTimeInterval(2))

        // More events and explicit flushes during the backoff send nothing.
        for index in 2...20 { try await phone.client.track("e.\(index)") }
        await phone.client.flush()
        try await phone.client.track("e.21")
        XCTAssertEqual(phone.transport.eventRequests.count, 1)

        try await phone.advance(2)
        XCTAssertEqual(phone.transport.eventRequests.count, 2)
        let secondRetry = await phone.client.nextRetryDate
        XCTAssertEqual(secondRetry, TestPhone.start.addingTimeInterval(2 + 4))
        try await phone.advance(4)
        XCTAssertEqual(phone.transport.eventRequests.count, 3)
        let thirdRetry = await phone.client.nextRetryDate
        XCTAssertEqual(thirdRetry, TestPhone.start.addingTimeInterval(2 + 4 + 8))

        phone.transport.setFallback(.status(202))
        try await phone.advance(8)
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
        let failures = await phone.client.consecutiveFlushFailures
        XCTAssertEqual(failures, 0)
        let retry = await phone.client.nextRetryDate
        XCTAssertNil(retry)
        let delivered = Set(phone.transport.batches.last?.map(\.event) ?? [])
        XCTAssertTrue(delivered.isSuperset(of: (1...20).map { "e.\($0)" }))
    }

    func testBackoffIsCappedAndJittered() {
        let policy = RetryPolicy(initialDelay: 2, multiplier: 2, maximumDelay: 60, jitter: 0.5)
        XCTAssertEqual(policy.delay(afterFailures: 1, random: 0), 2)
        XCTAssertEqual(policy.delay(afterFailures: 3, random: 0), 8)
        XCTAssertEqual(policy.delay(afterFailures: 30, random: 0), 60)
        XCTAssertEqual(policy.delay(afterFailures: 30, random: 1), 30)
        XCTAssertEqual(policy.delay(afterFailures: 1, retryAfter: 30, random: 0), 30)
        XCTAssertEqual(policy.delay(afterFailures: 1_000, random: 0.5), 45)
    }

    func testNetworkFailureIsRetriedWithTheSameEventIds() async throws {
        let phone = try await TestPhone()
        phone.transport.script(.unavailable, .timeout)
        try await phone.client.track("e.1")
        await phone.client.flush()
        try await phone.advance(2)
        try await phone.advance(4)
        XCTAssertEqual(phone.transport.eventRequests.count, 3)
        let ids = phone.transport.batches.map { $0.map(\.id) }
        XCTAssertEqual(Set(ids).count, 1, "every resend carries the same client ids, so the server deduplicates")
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }

    func testRetryAfterIsHonoured() async throws {
        let phone = try await TestPhone()
        phone.transport.script(.status(429, headers: ["Retry-After": "30"]))
        try await phone.client.track("e.1")
        await phone.client.flush()
        let retry = await phone.client.nextRetryDate
        XCTAssertEqual(retry, TestPhone.start.addingTimeInterval(30))
        try await phone.advance(29)
        XCTAssertEqual(phone.transport.eventRequests.count, 1)
        try await phone.advance(1)
        XCTAssertEqual(phone.transport.eventRequests.count, 2)
    }

    func testRefusedEventIsIsolatedAndDroppedWithoutBlockingTheRest() async throws {
        let phone = try await TestPhone()
        phone.transport.setRule { request in
            let text = String(decoding: request.body ?? Data(), as: UTF8.self)
            return text.contains("\"bad.event\"") ? .status(400, body: "{\"error\":{\"code\":\"invalid_value\",\"message\":\"no\"}}") : nil
        }
        phone.network.setOnline(false)
        for name in ["e.1", "bad.event", "e.3", "e.4"] { try await phone.client.track(name) }
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        let accepted = phone.transport.eventRequests.enumerated().filter { index, request in
            !String(decoding: request.body ?? Data(), as: UTF8.self).contains("bad.event")
        }.flatMap { phone.transport.batches[$0.offset] }.map(\.event)
        XCTAssertEqual(accepted, ["e.1", "e.3", "e.4"])
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
        XCTAssertTrue(phone.activity.all.contains { if case .eventsDropped(let ids, _) = $0 { return ids.count == 1 } else { return false } })
        let retry = await phone.client.nextRetryDate
        XCTAssertNil(retry, "a refused event is not a reason to back off")
    }

    func testExpiredTokenIsRefreshedOnceOn401() async throws {
        let calls = Locked(0)
        let phone = try await TestPhone {
            $0.subscriberToken = SubscriberTokenProvider {
                calls.withLock { $0 += 1 }
                return TestPhone.token
            }
        }
        phone.transport.script(.status(401))
        try await phone.client.track("e.1")
        await phone.client.flush()
        XCTAssertEqual(calls.current, 2)
        XCTAssertEqual(phone.transport.eventRequests.count, 2)
        let queued = await phone.client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }

    func testRepeated401BacksOffInsteadOfLooping() async throws {
        let phone = try await TestPhone()
        phone.transport.setFallback(.status(401))
        try await phone.client.track("e.1")
        await phone.client.flush()
        XCTAssertEqual(phone.transport.eventRequests.count, 2)
        let retry = await phone.client.nextRetryDate
        XCTAssertNotNil(retry)
        let queued = await phone.client.queuedEvents
        XCTAssertEqual(queued.count, 1, "events are kept, not dropped, when the token is refused")
    }

    func testTokenIsCachedUntilAMinuteBeforeItExpires() async throws {
        let calls = Locked(0)
        let expiry = Int(TestPhone.start.timeIntervalSince1970) + 600
        let phone = try await TestPhone {
            $0.subscriberToken = SubscriberTokenProvider {
                calls.withLock { $0 += 1 }
                return "v1.\(expiry).\(String(repeating: "cd", count: 32))"
            }
        }
        try await phone.client.track("e.1")
        await phone.client.flush()
        try await phone.client.track("e.2")
        await phone.client.flush()
        XCTAssertEqual(calls.current, 1)
        phone.clock.advance(by: 541)
        try await phone.client.track("e.3")
        await phone.client.flush()
        XCTAssertEqual(calls.current, 2)
    }

    func testTokenProviderFailureIsRetriedLater() async throws {
        let phone = try await TestPhone {
            $0.subscriberToken = SubscriberTokenProvider { throw BuzzKitError(.subscriberToken, context: "app", message: "backend down") }
        }
        try await phone.client.track("e.1")
        await phone.client.flush()
        XCTAssertTrue(phone.transport.requests.isEmpty)
        let retry = await phone.client.nextRetryDate
        XCTAssertEqual(retry, TestPhone.start.addingTimeInterval(2))
    }

    func testNetworkComingBackSkipsTheRemainingBackoff() async throws {
        let phone = try await TestPhone()
        phone.network.setOnline(false)
        try await phone.client.track("e.1")
        await phone.client.flush()
        try await phone.advance(2)
        try await phone.advance(4)
        let retry = await phone.client.nextRetryDate
        XCTAssertEqual(retry, TestPhone.start.addingTimeInterval(14))
        phone.network.setOnline(true)
        await phone.client.networkDidBecomeAvailable()
        XCTAssertEqual(phone.postedNames, ["e.1"])
    }
}
