import BuzzAPI
import BuzzServer
import BuzzServerTesting
import Foundation
import HTTPServer
import XCTest

/// A PostgreSQL outage longer than the key cache: keys seen before keep working (events need
/// only the broker), a key never seen is answered `503` with `Retry-After`, never `500`.
final class KeyCacheOutageTests: InMemoryAPITestCase {
    func testKnownKeysKeepServingAndUnknownOnesAre503WhileTheDatabaseIsDown() async throws {
        let event: [String: Any] = ["event": "app.opened", "subscriberId": "maya"]
        try await call("POST", "/v1/events", event, expect: 202)  // the key is cached
        store.setDown(true)
        clock.advance(by: 120)  // the cache's 30 s have passed
        try await call("POST", "/v1/events", event, expect: 202)
        try await call("POST", "/v1/events", event, device: "maya", expect: 503)  // the publishable key was never looked up

        let request = HTTPRequest(method: "POST", path: "/v1/events", headers: ["Authorization": "Bearer " + credentials.publishableKey,
                                  "X-BuzzKit-Subscriber-Token": TenantCredentials.subscriberToken(signingSecret: credentials.signingSecret, subscriberId: "maya",
                                                                                                  expiresAt: Int(clock.now.timeIntervalSince1970) + 3600)],
                                  body: try JSONSerialization.data(withJSONObject: event))
        let response = await api.handle(request)
        XCTAssertEqual(response.status, 503)
        XCTAssertTrue(response.headers.contains { $0.0.lowercased() == "retry-after" }, "says when to come back")
        let error = (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["error"] as? [String: Any]
        XCTAssertEqual(error?["code"] as? String, "storage_unavailable")

        store.setDown(false)
        try await call("POST", "/v1/events", event, device: "maya", expect: 202)
    }
}
