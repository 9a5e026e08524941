import BuzzAPI
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import XCTest

/// A device's life over the API (contract §4b): its reported permission, its re-registration
/// after APNs refused its token, and its logout (`DELETE /v1/subscribers/{id}/devices/{token}`).
final class DeviceLifecycleIntegrationTests: APITestCase {
    /// `(active, inactive_reason, authorization)` of the device with `token`.
    func row(_ token: String) throws -> (active: Bool, reason: String?, authorization: String?) {
        try api.pipeline.pool.withConnection { db in
            let row = try db.query("SELECT active, inactive_reason, \"authorization\" FROM devices WHERE token = \(token)")[0]
            return (try row.decode("active", as: Bool.self), try row.decode("inactive_reason", as: String?.self),
                    try row.decode("authorization", as: String?.self))
        }
    }

    func register(_ subscriber: String, _ token: String, authorization: Any? = nil) -> APIHarness.Response {
        var body: [String: Any] = ["platform": "ios", "token": token, "topic": "com.example.gym"]
        if let authorization { body["authorization"] = authorization }
        return api.call("PUT", "/v1/subscribers/\(subscriber)/devices", body: body, key: api.publishableKey, headers: api.deviceHeaders(subscriber))
    }

    func logout(_ subscriber: String, _ token: String, key: String? = nil) -> APIHarness.Response {
        if let key { return api.call("DELETE", "/v1/subscribers/\(subscriber)/devices/\(token)", key: key) }
        return api.call("DELETE", "/v1/subscribers/\(subscriber)/devices/\(token)", key: api.publishableKey, headers: api.deviceHeaders(subscriber))
    }

    func testAuthorizationIsStoredAndAnInvalidValueRefused() throws {
        let token = String(repeating: "ab", count: 32)
        let denied = register("maya", token, authorization: "denied")
        XCTAssertEqual(denied.status, 200)
        XCTAssertEqual(denied.object["authorization"] as? String, "denied")
        XCTAssertEqual(try row(token).authorization, "denied")
        XCTAssertEqual(register("maya", token).status, 200)
        XCTAssertEqual(try row(token).authorization, "denied", "a registration that does not say keeps what was reported")
        for value in ["authorized", "provisional", "notDetermined"] {
            XCTAssertEqual(register("maya", token, authorization: value).status, 200)
            XCTAssertEqual(try row(token).authorization, value)
        }
        for bad: Any in ["Authorized", "maybe", "", 42, ["authorized"]] {
            let refused = register("maya", token, authorization: bad)
            XCTAssertEqual(refused.status, 400, "\(bad)")
            XCTAssertEqual(refused.errorCode, "invalid_value", "\(bad)")
            XCTAssertEqual(refused.errorField, "authorization", "\(bad)")
        }
        XCTAssertEqual(try row(token).authorization, "notDetermined", "refused registrations change nothing")

        // Silent plan pushes need no permission: a denied device still gets its plans.
        XCTAssertEqual(register("maya", token, authorization: "denied").status, 200)
        try api.pipeline.scheduleWorkout("maya", at: Date().addingTimeInterval(60))
        XCTAssertTrue(TestServices.eventually(timeout: 10) { self.api.pipeline.pushes(to: token).contains { $0.pushType == .background } })
    }

    func testADeviceRefusedByAPNsIsActiveAgainAfterRegistering() throws {
        let tokens = try api.pipeline.subscriber("sam", devices: 2)
        api.pipeline.push.setOutcome(.deviceUnregistered(reason: "Unregistered", since: Date()), forToken: tokens[0])
        api.pipeline.push.setOutcome(.deviceUnregistered(reason: "BadDeviceToken", since: nil), forToken: tokens[1])
        try api.pipeline.scheduleWorkout("sam", at: Date().addingTimeInterval(60), workoutId: "w1")
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try tokens.allSatisfy { try !self.row($0).active } })
        XCTAssertEqual(try row(tokens[0]).reason, "Unregistered")
        XCTAssertEqual(try row(tokens[1]).reason, "BadDeviceToken")

        api.pipeline.push.removeOutcome(forToken: tokens[0])
        api.pipeline.push.removeOutcome(forToken: tokens[1])
        for token in tokens {
            XCTAssertEqual(register("sam", token).status, 200)
            XCTAssertTrue(try row(token).active, "re-registering reactivates it")
            XCTAssertNil(try row(token).reason)
        }
        api.pipeline.push.removeAllSent()
        try api.pipeline.scheduleWorkout("sam", at: Date().addingTimeInterval(60), workoutId: "w2")
        XCTAssertTrue(TestServices.eventually(timeout: 10) { tokens.allSatisfy { !self.api.pipeline.pushes(to: $0).isEmpty } },
                      "both get the next plan")
    }

    func testALoggedOutDeviceGetsNoPlanCancelOrFallbackForTheSubscriber() throws {
        let tokens = try api.pipeline.subscriber("kim", devices: 2)
        // A plan reaches both devices; then the first logs out, and the run is cancelled.
        try api.pipeline.scheduleWorkout("kim", at: Date().addingTimeInterval(60), workoutId: "w1")
        XCTAssertTrue(TestServices.eventually(timeout: 10) { tokens.allSatisfy { self.api.pipeline.pushes(to: $0).count == 1 } })
        let out = logout("kim", tokens[0])
        XCTAssertEqual(out.status, 204)
        XCTAssertTrue(out.data.isEmpty, "204 has no body")
        XCTAssertEqual(try row(tokens[0]).active, false)
        XCTAssertEqual(try row(tokens[0]).reason, "logged out")
        XCTAssertEqual(logout("kim", tokens[0]).status, 204, "idempotent")
        XCTAssertEqual(logout("kim", tokens[0].uppercased(), key: api.secretKey).status, 204, "the server may do it too, any case")
        XCTAssertTrue(try row(tokens[1]).active, "the other device stays")
        let planned = try XCTUnwrap(try api.pipeline.runs().first)
        XCTAssertEqual(api.call("POST", "/v1/runs/\(planned.id.uuidString.lowercased())/cancel", key: api.secretKey).status, 200)
        XCTAssertTrue(TestServices.eventually(timeout: 10) { self.api.pipeline.pushes(to: tokens[1]).count == 2 }, "bk.cancel to the other device")

        // A later run with no acknowledgment: plan and fallback go to the other device only.
        try api.pipeline.scheduleWorkout("kim", at: Date().addingTimeInterval(2), workoutId: "w2")
        XCTAssertTrue(TestServices.eventually(timeout: 15) { self.api.pipeline.pushes(to: tokens[1]).contains { $0.pushType == .alert } })
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(api.pipeline.pushes(to: tokens[0]).count, 1, "only the plan from before the logout")
        XCTAssertEqual(api.pipeline.pushes(to: tokens[1]).count, 4, "plan, cancel, plan, fallback")

        // Registering again brings it back.
        XCTAssertEqual(register("kim", tokens[0]).status, 200)
        try api.pipeline.scheduleWorkout("kim", at: Date().addingTimeInterval(60), workoutId: "w3")
        XCTAssertTrue(TestServices.eventually(timeout: 10) { self.api.pipeline.pushes(to: tokens[0]).count == 2 })
    }

    func testUnknownTokensAndOtherSubscribersTokensAre404() throws {
        let kim = try api.pipeline.subscriber("kim")
        let lee = try api.pipeline.subscriber("lee")
        let unknown = logout("kim", String(repeating: "0f", count: 32))
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.errorCode, "not_found")
        XCTAssertNotNil((unknown.object["error"] as? [String: Any])?["message"] as? String)
        XCTAssertEqual(logout("kim", lee[0]).status, 404, "lee's device is not kim's to remove")
        XCTAssertEqual(logout("kim", lee[0], key: api.secretKey).status, 404, "not even with the secret key")
        XCTAssertEqual(logout("kim", "not-a-token").status, 404)
        XCTAssertTrue(try row(lee[0]).active)
        // A device acts only for its own subscriber.
        let forLee = api.call("DELETE", "/v1/subscribers/kim/devices/\(kim[0])", key: api.publishableKey, headers: api.deviceHeaders("lee"))
        XCTAssertEqual(forLee.status, 401)
        XCTAssertEqual(forLee.errorCode, "invalid_subscriber_token")
        XCTAssertEqual(api.call("DELETE", "/v1/subscribers/kim/devices/\(kim[0])").status, 401)
        XCTAssertTrue(try row(kim[0]).active)
        let rival = try api.pipeline.directory.createTenant(name: "rival")
        XCTAssertEqual(logout("kim", kim[0], key: rival.secretKey).status, 404, "another tenant's kim has no such device")
        XCTAssertTrue(try row(kim[0]).active)
    }
}
