import BuzzAPI
import BuzzServer
import BuzzServerTesting
import Foundation
import HTTPServer
import XCTest

/// The publishable key ships in every app, so anyone can send device requests with made-up
/// subscriber tokens. Each made-up token would get a fresh per-token bucket; instead, tokens
/// this API has not seen verified share their tenant's bucket, and a real phone, once its token
/// checked out, has its own and is not held up by the flood.
final class ForgedTokenLimitTests: InMemoryAPITestCase {
    override func setUpWithError() throws {
        rateLimits.unverifiedDevicePerSecond = 1
        rateLimits.unverifiedDeviceBurst = 3
        try super.setUpWithError()
    }

    private func forged(_ n: Int) async -> HTTPResponse {
        let mac = String(repeating: String(format: "%02x", n % 256), count: 32)
        let headers = ["Authorization": "Bearer " + credentials.publishableKey,
                       "X-BuzzKit-Subscriber-Token": "v1.\(Int(clock.now.timeIntervalSince1970) + 3600).\(mac)"]
        let body = try! JSONSerialization.data(withJSONObject: ["event": "app.opened", "subscriberId": "maya"])
        return await api.handle(HTTPRequest(method: "POST", path: "/v1/events", headers: headers, body: body))
    }

    func testMadeUpTokensShareTheirTenantsBucketAndAVerifiedPhoneKeepsItsOwn() async throws {
        try await call("POST", "/v1/events", ["event": "app.opened", "subscriberId": "maya"], device: "maya", expect: 202)  // verified from now on
        var statuses: [Int] = []
        for n in 0..<6 { statuses.append(await forged(n).status) }
        XCTAssertEqual(statuses, [401, 401, 429, 429, 429, 429], "two left in the shared burst, then refused before the body is looked at")
        try await call("POST", "/v1/events", ["event": "app.opened", "subscriberId": "maya"], device: "maya", expect: 202)
        try await call("POST", "/v1/events", ["event": "app.opened", "subscriberId": "sam"], device: "sam", expect: 429)  // a first request waits for the shared bucket
        clock.advance(by: 1)
        try await call("POST", "/v1/events", ["event": "app.opened", "subscriberId": "sam"], device: "sam", expect: 202)
    }

    func testADeviceBodyOverItsLimitIsRefused() async throws {
        let big = String(repeating: "x", count: rateLimits.deviceBodyMaxBytes)
        let answer = try await call("POST", "/v1/events", ["event": "app.opened", "subscriberId": "maya", "properties": ["note": big]],
                                    device: "maya", expect: 413)
        XCTAssertEqual((answer.object["error"] as? [String: Any])?["code"] as? String, "body_too_large")
        try await call("POST", "/v1/events", ["event": "app.opened", "subscriberId": "maya", "properties": ["note": big]], expect: 202)  // a server may
    }
}
