import Foundation
import BuzzKitWire
import BuzzEngine
import XCTest
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore
import AMQPClient

final class ServerUnitTests: XCTestCase {
    /// A mistyped URL is named by its setting, never echoed with its password.
    func testAMalformedURLsPasswordIsNotEchoed() {
        for (field, value) in [("BUZZKIT_DATABASE_URL", "mysql://buzz:s3cr3t-pw@db:5432/x"), ("BUZZKIT_AMQP_URL", "amqps//buzz:s3cr3t-pw@mq/%2f")] {
            XCTAssertThrowsError(try Configuration(environment: [field: value])) { error in
                XCTAssertEqual((error as? ServerError)?.field, field)
                XCTAssertFalse("\(error)".contains("s3cr3t-pw"), "\(error)")
            }
        }
    }

    /// Counts in headers come from outside: a publisher's are ignored, a copy's are clamped,
    /// so no value (`Int64.max`, negative) overflows the attempt arithmetic or decides a retry.
    func testAttemptCountsFromHeadersAreClampedAndOnlyACopysAreRead() {
        let hostile: [String: AMQPFieldValue] = ["x-buzzkit-prior-failures": .int(Int64.max), "x-delivery-count": .int(Int64.max)]
        XCTAssertEqual(QueueWorker.attemptsUsed(headers: hostile, isCopy: true), 2 * QueueWorker.attemptCountCap)
        XCTAssertEqual(QueueWorker.attemptsUsed(headers: hostile, isCopy: false), QueueWorker.attemptCountCap, "a publisher's prior failures count for nothing")
        let negative: [String: AMQPFieldValue] = ["x-buzzkit-prior-failures": .int(Int64.min), "x-delivery-count": .int(-3)]
        XCTAssertEqual(QueueWorker.attemptsUsed(headers: negative, isCopy: true), 0)
        XCTAssertEqual(QueueWorker.attemptsUsed(headers: ["x-buzzkit-prior-failures": .int(4), "x-delivery-count": .int(2)], isCopy: true), 6)
        // The packed-items count only sizes batches; it is clamped the same way.
        XCTAssertEqual(QueueWorker.itemsCarried(headers: [Topology.itemsHeader: .int(Int64.max)]), 100_000)
        XCTAssertEqual(QueueWorker.itemsCarried(headers: [Topology.itemsHeader: .int(Int64.min)]), 1)
        XCTAssertEqual(QueueWorker.itemsCarried(headers: [:]), 1)
        XCTAssertEqual(QueueWorker.itemsCarried(headers: [Topology.itemsHeader: .int(40)]), 40)
    }

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

    func testEveryBoundedNumberNamesItsFieldAndItsBoundsAlike() throws {
        let cases: [(String, String, String)] = [
            ("BUZZKIT_WINDOW_COMPLETION_DELAY_SECONDS", "-1", "must be between 0 and 3600 seconds, got -1"),
            ("BUZZKIT_WINDOW_COMPLETION_PAUSE_SECONDS", "61", "must be between 0 and 60 seconds, got 61"),
            ("BUZZKIT_WINDOW_COMPLETION_BATCH", "0", "must be between 1 and 10000, got 0"),
            ("BUZZKIT_WINDOW_COMPLETION_SHARE", "0", "must be between 0.01 and 1, got 0"),
            ("BUZZKIT_RETENTION_INTERVAL_SECONDS", "0.001", "must be between 0.01 and 86400 seconds, got 0.001"),
            ("BUZZKIT_RETENTION_RUN_DAYS", "0", "must be above 0 and at most 3650 days, got 0"),
            ("BUZZKIT_RETENTION_INACTIVE_DEVICE_DAYS", "4000", "must be above 0 and at most 3650 days, got 4000"),
            ("BUZZKIT_LANE_BULK_SHARE", "1.5", "must be above 0 and at most 1, got 1.5"),
            ("BUZZKIT_SHUTDOWN_GRACE_SECONDS", "nan", "must be between 0 and 3600 seconds, got nan"),
            ("BUZZKIT_SCHEDULER_RELAYS", "0", "must be between 1 and 16, got 0"),
        ]
        for (field, value, message) in cases {
            XCTAssertThrowsError(try Configuration(environment: [field: value]), field) { error in
                XCTAssertEqual((error as? ServerError)?.field, field)
                XCTAssertTrue("\(error)".contains(message), "\(field): \(error)")
            }
        }
        var settings = try Configuration(environment: ["BUZZKIT_WINDOW_COMPLETION_DELAY_SECONDS": "0", "BUZZKIT_SCHEDULER_RELAYS": "4"])
        XCTAssertEqual(settings.completion.delaySeconds, 0)
        XCTAssertEqual(settings.schedulerRelays, 4)
        settings.completion.pauseSeconds = 60
        XCTAssertNoThrow(try settings.validate(), "the bounds themselves are allowed")
    }

    /// Every variable the server reads is one an operator can look up, and each is read once:
    /// set to text that is not a number, every numeric one is refused under its own name.
    func testEveryVariableIsDocumentedAndReadUnderItsName() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try ["README.md", "docs/operations.md"].map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }.joined()
        let names = Configuration.variableNames + RateLimits.variableNames + LaneSettings.variableNames
            + RetentionSettings.variableNames + CompletionSettings.variableNames
        XCTAssertEqual(Set(names).count, names.count, "a variable listed twice")
        XCTAssertGreaterThan(names.count, 50)
        for name in names {
            XCTAssertTrue(docs.contains(name), "\(name) is not in README.md or docs/operations.md")
            guard !name.hasSuffix("_URL"), !name.hasSuffix("_FILE"), !name.hasSuffix("_ID"),
                  !["BUZZKIT_DB_SCHEMA", "BUZZKIT_QUEUE_PREFIX", "BUZZKIT_LOG_FORMAT"].contains(name) else { continue }
            XCTAssertThrowsError(try Configuration(environment: [name: "lots"]), name) { error in
                XCTAssertEqual((error as? ServerError)?.field, name)
            }
        }
    }

    /// The run state form is chosen by name; anything else is refused with the names allowed.
    func testRunStateFormIsChosenByName() throws {
        XCTAssertEqual(try Configuration(environment: [:]).runStateForm, .compact)
        XCTAssertEqual(try Configuration(environment: ["BUZZKIT_RUN_STATE_FORM": "verbose"]).runStateForm, .verbose)
        XCTAssertThrowsError(try Configuration(environment: ["BUZZKIT_RUN_STATE_FORM": "v1"])) { error in
            XCTAssertEqual("\(error)".contains("must be verbose or compact, got \"v1\""), true, "\(error)")
        }
    }

    func testAPIKeysParseAndHashTheirSecret() {
        let key = APIKey.generate(.secret)
        XCTAssertEqual(APIKey(key.text), key)
        XCTAssertTrue(key.text.hasPrefix("sk_"))
        XCTAssertNil(APIKey("sk_only"))
        XCTAssertNil(APIKey("xk_ab_cd"))
        XCTAssertNil(APIKey("sk_zz_cd"))
        for malformed in ["", "sk_", "sk__cd", "sk_ab_", "sk_ab_cd_ef", "sk_ab_c d", "sk-ab_cd", "pk_äb_cd", "sk_ab_cd\u{0}"] {
            XCTAssertNil(APIKey(malformed), malformed)
        }
        XCTAssertEqual(APIKey("pk_AB09_ff")?.kind, .publishable)
        XCTAssertEqual(APIKey(bearer: "Bearer \t \(key.text)  "), key, "blanks around the key are allowed")
        for header in ["Bearer", "Bearer ", "Bearer   ", "bearer \(key.text)", "Basic \(key.text)", "Bearer \(key.text) x"] {
            XCTAssertNil(APIKey(bearer: header), header)
        }
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
