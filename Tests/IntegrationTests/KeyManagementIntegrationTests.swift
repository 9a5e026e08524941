import BuzzServer
import Foundation
import XCTest

/// Keys and signing secrets can be rotated and revoked without SQL (issue 12).
final class KeyManagementIntegrationTests: APITestCase {
    override func makeHarness() throws -> APIHarness { try APIHarness(workers: false) }

    override func prepare() throws { try pipeline.subscriber("u_1") }

    func event(key: String, token: String? = nil) -> APIHarness.Response {
        api.call("POST", "/v1/events", body: ["event": "app.opened", "subscriberId": "u_1"], key: key,
                 headers: token.map { ["X-BuzzKit-Subscriber-Token": $0] } ?? [:])
    }

    func token(_ secret: String) -> String {
        TenantCredentials.subscriberToken(signingSecret: secret, subscriberId: "u_1", expiresAt: Int(Date().timeIntervalSince1970) + 3600)
    }

    func testANewKeyWorksAtOnceAndARevokedOneIsRefused() throws {
        let directory = api.pipeline.directory, tenantId = api.pipeline.tenantId
        let second = try directory.createKey(tenantId: tenantId, kind: .secret)
        XCTAssertEqual(event(key: second).status, 202)
        XCTAssertEqual(event(key: api.secretKey).status, 202, "the first key still works until it is revoked")
        let third = try directory.createKey(tenantId: tenantId, kind: .secret)
        let thirdId = String(third.split(separator: "_")[1])
        try directory.revokeKey(tenantId: tenantId, keyId: thirdId)
        let refused = event(key: third)
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(refused.errorCode, "invalid_key")
        XCTAssertThrowsError(try directory.revokeKey(tenantId: tenantId, keyId: thirdId), "revoked already")
        let listed = try directory.keys(tenantId: tenantId)
        XCTAssertEqual(listed.count, 4)
        XCTAssertEqual(listed.filter { $0.revokedAt != nil }.map(\.id), [thirdId])
    }

    func testTheOldSigningSecretVerifiesTokensOnlyDuringItsGracePeriod() throws {
        let directory = api.pipeline.directory, tenantId = api.pipeline.tenantId
        let original = api.pipeline.credentials.signingSecret
        let rotated = try directory.rotateSigningSecret(tenantId: tenantId, grace: 3600)
        XCTAssertNotEqual(rotated, original)
        XCTAssertEqual(event(key: api.publishableKey, token: token(original)).status, 202, "within the grace period")
        XCTAssertEqual(event(key: api.publishableKey, token: token(rotated)).status, 202)

        let latest = try directory.rotateSigningSecret(tenantId: tenantId, grace: 0)
        // A key the API has not cached yet reads the tenant as it is now.
        let fresh = try directory.createKey(tenantId: tenantId, kind: .publishable)
        XCTAssertEqual(event(key: fresh, token: token(original)).status, 401, "two rotations ago")
        XCTAssertEqual(event(key: fresh, token: token(rotated)).status, 401, "its grace period is over")
        XCTAssertEqual(event(key: fresh, token: token(latest)).status, 202)
    }

    /// A key in use, revoked by another process (the CLI): every API process hears of it on
    /// the tenant channel and refuses the key within a moment, not when its cache expires.
    func testAKeyInUseRevokedElsewhereIsRefusedWithinASecond() throws {
        let directory = api.pipeline.directory, tenantId = api.pipeline.tenantId
        let key = try directory.createKey(tenantId: tenantId, kind: .secret)
        XCTAssertEqual(event(key: key).status, 202, "cached by the API now")
        try directory.revokeKey(tenantId: tenantId, keyId: String(key.split(separator: "_")[1]))
        let revokedAt = Date()
        var status = 0
        while Date().timeIntervalSince(revokedAt) < 5 {
            status = event(key: key).status
            if status == 401 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(status, 401)
        XCTAssertLessThan(Date().timeIntervalSince(revokedAt), 1.5, "refused within a moment of the revocation")
        XCTAssertEqual(event(key: api.secretKey).status, 202, "the tenant's other keys still work")

        // A rotated signing secret with no grace: the old tokens stop at once too.
        let original = api.pipeline.credentials.signingSecret
        XCTAssertEqual(event(key: api.publishableKey, token: token(original)).status, 202)
        _ = try directory.rotateSigningSecret(tenantId: tenantId, grace: 0)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(event(key: api.publishableKey, token: token(original)).status, 401)
    }
}
