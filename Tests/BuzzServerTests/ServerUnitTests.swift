import Foundation
import BuzzKitWire
import XCTest
@testable import BuzzServer

final class ServerUnitTests: XCTestCase {
    func testConfigurationNamesTheOffendingField() {
        XCTAssertThrowsError(try Configuration(environment: ["BUZZKIT_HTTP_PORT": "eighty"])) { error in
            XCTAssertEqual((error as? ServerError)?.field, "BUZZKIT_HTTP_PORT")
        }
        XCTAssertThrowsError(try Configuration(environment: ["BUZZKIT_DATABASE_URL": "mysql://x"])) { error in
            XCTAssertEqual((error as? ServerError)?.field, "BUZZKIT_DATABASE_URL")
        }
        XCTAssertThrowsError(try Configuration(environment: ["BUZZKIT_APNS_KEY_FILE": "/k.p8"])) { error in
            XCTAssertEqual((error as? ServerError)?.field, "BUZZKIT_APNS_KEY_ID")
        }
        XCTAssertEqual(try Configuration(environment: [:]), Configuration())
    }

    func testAPIKeysParseAndHashTheirSecret() {
        let key = APIKey.generate(.secret)
        XCTAssertEqual(APIKey(key.text), key)
        XCTAssertTrue(key.text.hasPrefix("sk_"))
        XCTAssertNil(APIKey("sk_only"))
        XCTAssertNil(APIKey("xk_ab_cd"))
        XCTAssertNil(APIKey("sk_zz_cd"))
        XCTAssertNotEqual(key.secretHash, key.secret)
        XCTAssertEqual(key.secretHash.count, 64)
    }

    func testSubscriberTokenMatchesTheContract() {
        // HMAC-SHA256("secret", "u_123.1796029200"), computed independently with Python's hmac module.
        let token = TenantCredentials.subscriberToken(signingSecret: "secret", subscriberId: "u_123", expiresAt: 1_796_029_200)
        XCTAssertEqual(token, "v1.1796029200.42d8864c324327874498e2d813ec17866b28c727ac2fdeb9a520a2a5789fc7fb")
    }

    func testMetricsRenderPrometheusText() {
        let metrics = Metrics()
        metrics.increment("buzzkit_messages_total", ["queue": "trigger", "outcome": "processed"], by: 3, help: "Messages")
        metrics.observe("buzzkit_batch_seconds", ["queue": "trigger"], 0.004)
        let text = metrics.render()
        XCTAssertTrue(text.contains("# TYPE buzzkit_messages_total counter"))
        XCTAssertTrue(text.contains(#"buzzkit_messages_total{outcome="processed",queue="trigger"} 3"#))
        XCTAssertTrue(text.contains(#"buzzkit_batch_seconds_bucket{queue="trigger",le="0.005"} 1"#))
        XCTAssertTrue(text.contains(#"buzzkit_batch_seconds_bucket{queue="trigger",le="+Inf"} 1"#))
    }

    func testMigrationFilesParseInOrder() throws {
        let migrations = try Migration.bundled()
        XCTAssertEqual(migrations.map(\.version), Array(1...migrations.count))
    }
}

final class EventInputTests: XCTestCase {
    func testAMQPAndHTTPShareOneValidation() throws {
        let now = Date(timeIntervalSince1970: 1_796_029_200)
        let ok = try EventInput.parse(["event": "workout.completed", "subscriberId": "u_1"], path: "", now: now)
        XCTAssertEqual(ok.timestamp, now, "a missing timestamp is the time of receipt")
        XCTAssertThrowsError(try EventInput.parse(["event": "a", "subscriberId": "u", "extra": 1], path: "", now: now)) { error in
            XCTAssertEqual((error as? ServerError)?.reason, "unknown_field")
            XCTAssertEqual((error as? ServerError)?.field, "extra")
        }
        XCTAssertThrowsError(try EventInput.parse(["event": "$local.scheduled", "subscriberId": "u", "properties": ["localId": "r/s"]], path: "", now: now)) { error in
            XCTAssertEqual((error as? ServerError)?.field, "properties.messageId")
        }
        XCTAssertThrowsError(try EventInput.parse(["event": "a b", "subscriberId": "u"], path: "events[3]", now: now)) { error in
            XCTAssertEqual((error as? ServerError)?.field, "events[3].event")
        }
    }
}
