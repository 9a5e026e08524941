import BuzzAPI
import BuzzServer
import BuzzServerTesting
import Foundation
import XCTest

/// One phone cannot flood the shared lanes with big batches: a device's events are limited one
/// by one (50 a second, burst 500, at most 100 a request), and other subscribers are not slowed.
final class DeviceEventLimitTests: InMemoryAPITestCase {
    private func batch(_ count: Int, from subscriber: String, tag: String) -> [String: Any] {
        ["events": (0..<count).map { ["id": "\(tag)-\($0)", "event": "app.opened", "subscriberId": subscriber] }]
    }

    func testADevicesEventsAreLimitedOneByOneNotPerRequest() async throws {
        try await call("POST", "/v1/events", batch(101, from: "maya", tag: "big"), device: "maya", expect: 413)
        for round in 0..<5 {
            try await call("POST", "/v1/events", batch(100, from: "maya", tag: "r\(round)"), device: "maya", expect: 202)
        }
        let refused = try await call("POST", "/v1/events", batch(100, from: "maya", tag: "r5"), device: "maya", expect: 429)
        XCTAssertEqual((refused.object["error"] as? [String: Any])?["code"] as? String, "rate_limited")
        try await call("POST", "/v1/events", batch(100, from: "sam", tag: "s"), device: "sam", expect: 202)  // another subscriber is not slowed
        try await call("POST", "/v1/events", batch(100, from: "maya", tag: "srv"), expect: 202)  // nor the tenant's backend
        clock.advance(by: 2)  // 100 events' worth at 50 a second
        try await call("POST", "/v1/events", batch(100, from: "maya", tag: "later"), device: "maya", expect: 202)
    }
}
