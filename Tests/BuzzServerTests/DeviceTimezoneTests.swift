import BuzzAPI
import BuzzServer
import BuzzServerTesting
import Foundation
import XCTest

/// A phone reports its time zone with its registration; the subscriber's zone follows it, so
/// "07:00 in the subscriber's timezone" is 07:00 where the person is.
final class DeviceTimezoneTests: InMemoryAPITestCase {
    private let token = String(repeating: "0f", count: 32)

    func testTheSubscribersZoneFollowsThePhonesAndAZoneThatIsNotIANAIsRefused() async throws {
        try await call("PUT", "/v1/subscribers/maya", ["timezone": "Europe/Berlin"], expect: 200)
        try await call("PUT", "/v1/subscribers/maya/devices", ["platform": "ios", "token": token, "topic": "com.example.gym",
                                                               "timezone": "America/New_York"], device: "maya", expect: 200)
        let profile = try await call("GET", "/v1/subscribers/maya", expect: 200).object
        XCTAssertEqual(profile["timezone"] as? String, "America/New_York")
        let refused = try await call("PUT", "/v1/subscribers/maya/devices", ["platform": "ios", "token": token, "topic": "com.example.gym",
                                                                             "timezone": "Mars/Olympus"], device: "maya", expect: 400)
        XCTAssertEqual((refused.object["error"] as? [String: Any])?["code"] as? String, "unknown_timezone")
        try await call("PUT", "/v1/subscribers/maya/devices", ["platform": "ios", "token": token, "topic": "com.example.gym"], device: "maya", expect: 200)
        let unchanged = try await call("GET", "/v1/subscribers/maya", expect: 200).object
        XCTAssertEqual(unchanged["timezone"] as? String, "America/New_York", "a registration without a zone leaves it")
    }
}
