import APNsStandIn
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import XCTest

/// The pipeline sending through the real APNs provider (HTTP/2 over TLS) to the stand-in.
final class PipelineAPNsTests: XCTestCase {
    func testPlansAndFallbacksReachTheStandInAndDeadTokensAreDeactivated() throws {
        let (standIn, provider, directory) = try makeStandIn()
        defer { standIn.stop(); provider.close(); try? FileManager.default.removeItem(atPath: directory) }
        let harness = try PipelineHarness(provider: provider)
        defer { harness.shutdown() }
        try harness.putLegDay()
        let tokens = try harness.subscriber("max", devices: 2)
        var failures = APNsFailurePlan()
        // Dead since after its registration (a 410 older than the registration would leave it active).
        failures.set(.unregistered(since: Date().addingTimeInterval(1)), forToken: tokens[1])
        standIn.failures = failures

        let moment = Date().addingTimeInterval(2)
        try harness.scheduleWorkout("max", at: moment)
        let done = try XCTUnwrap(try harness.waitForRun(timeout: 15) { $0.state.status == .completed })
        XCTAssertTrue(standIn.waitForPushes(count: 2, timeout: 5))
        let pushes = standIn.pushes.filter { $0.deviceToken == tokens[0] }
        XCTAssertEqual(pushes.map(\.pushType), ["background", "alert"])
        XCTAssertEqual(pushes.first?.priority, 5)
        XCTAssertEqual(pushes.first?.topic, "com.example.gym")
        XCTAssertEqual(pushes.last?.priority, 10)
        let localId = "\(done.id.uuidString.lowercased())/nudge"
        XCTAssertEqual(pushes.last?.collapseId, "\(localId)/fallback")
        XCTAssertEqual(done.state.summary.steps.last?.local?.planSentTo, 1, "the dead token did not count")
        XCTAssertTrue(standIn.pushes.allSatisfy { $0.deviceToken != tokens[1] }, "410 answers are not recorded as accepted")

        let rows = try harness.pool.withConnection { db in
            try db.query("SELECT d.active, d.inactive_reason, x.status, x.apns_id, x.kind FROM devices d LEFT JOIN deliveries x ON x.device_id = d.id WHERE d.token = \(tokens[1])")
        }
        XCTAssertEqual(rows.count, 1, "the dead device got the plan attempt only, never the fallback")
        XCTAssertEqual(try rows[0].decode("active", as: Bool.self), false)
        XCTAssertEqual(try rows[0].decode("inactive_reason", as: String?.self), "Unregistered")
        XCTAssertEqual(try rows[0].decode("status", as: String?.self), "unregistered")
        let sent = try harness.pool.withConnection { db in
            try db.query("SELECT apns_id FROM deliveries WHERE status = 'sent' AND kind = 'fallback'").map { try $0.decode("apns_id", as: String?.self) }
        }
        XCTAssertEqual(sent.count, 1)
        XCTAssertEqual(sent.first??.lowercased(), pushes.last?.apnsId.uuidString.lowercased(), "the delivery row keeps the apns-id")
    }

    /// APNs answers after 9 s, past the 5 s relay lease of the rows the trigger worker sends
    /// itself after its commit: the scheduler must not relay them and send the plan again.
    func testAnAPNsSlowerThanTheRelayLeaseIsSentEachPushOnce() throws {
        let (standIn, provider, directory) = try makeStandIn()
        defer { standIn.stop(); provider.close(); try? FileManager.default.removeItem(atPath: directory) }
        var slow = APNsFailurePlan()
        slow.latency = 9
        standIn.failures = slow
        let harness = try PipelineHarness(provider: provider)
        defer { harness.shutdown() }
        try harness.putLegDay()
        let tokens = try harness.subscriber("max", devices: 1)
        try harness.scheduleWorkout("max", at: Date().addingTimeInterval(3600))
        XCTAssertTrue(standIn.waitForPushes(count: 1, timeout: 20))
        Thread.sleep(forTimeInterval: 10)  // the lease passed long ago; a relay would have sent it again by now
        XCTAssertEqual(standIn.pushes.filter { $0.deviceToken == tokens[0] }.map(\.pushType), ["background"], "the plan went out once")
        let deliveries = try harness.pool.withConnection { try $0.query("SELECT count(*) AS n FROM deliveries")[0].decode("n", as: Int.self) }
        XCTAssertEqual(deliveries, 1)
    }

    /// APNs answers the fallback 500 eight times, then 200: the provider's quick tries end in
    /// `failed`, the retry written with the decision sends it again after a backoff, and the
    /// phone gets the fallback once, carrying `apns-expiration` at the moment plus an hour.
    func testAFallbackRefusedEightTimesArrivesOnceItsRetryGetsThrough() throws {
        try withStandIn { standIn, harness, token in
            let moment = Date().addingTimeInterval(3)
            try harness.scheduleWorkout("max", at: moment)
            XCTAssertTrue(standIn.waitForPushes(count: 1, timeout: 10), "the plan went out first")
            var failures = APNsFailurePlan()
            failures.set(.failFirst(8, status: 500, reason: "InternalServerError"), forToken: token)
            standIn.failures = failures

            XCTAssertTrue(standIn.waitForPushes(count: 2, timeout: 40), "the fallback got through on a later retry")
            Thread.sleep(forTimeInterval: 6)  // a second copy would come within another backoff
            let alerts = standIn.pushes.filter { $0.deviceToken == token && $0.pushType == "alert" }
            XCTAssertEqual(alerts.count, 1, "the fallback arrived once")
            XCTAssertEqual(alerts.first?.expiration, Int(moment.timeIntervalSince1970.rounded(.up)) + 3600, "apns-expiration is the moment plus the default hour")
            XCTAssertEqual(standIn.statistics.answersByStatus[500], 8)
            let row = try harness.pool.withConnection { db in
                try db.query("SELECT status, attempts FROM deliveries WHERE kind = 'fallback'")
            }
            XCTAssertEqual(row.count, 1)
            XCTAssertEqual(try row.first?.decode("status", as: String.self), "sent")
            XCTAssertEqual(try row.first?.decode("attempts", as: Int.self), 9, "eight refusals and the answer that took it")
        }
    }

    /// APNs answers 429 with `Retry-After: 9`, longer than the provider waits between its own
    /// tries: the push is retried after those 9 s, not before, and arrives once.
    func testA429WithRetryAfterIsSentAgainNoSoonerThanAsked() throws {
        try withStandIn { standIn, harness, token in
            var failures = APNsFailurePlan()
            failures.set(.throttleFirst(1, retryAfter: 9), forToken: token)
            standIn.failures = failures
            let refusedAt = Date()
            try harness.scheduleWorkout("max", at: Date().addingTimeInterval(3600))
            XCTAssertTrue(standIn.waitForPushes(count: 1, timeout: 30), "the plan got through after the wait")
            let accepted = try XCTUnwrap(standIn.pushes.first)
            XCTAssertGreaterThanOrEqual(accepted.receivedAt.timeIntervalSince(refusedAt), 9, "not before Retry-After")
            XCTAssertEqual(standIn.statistics.answersByStatus[429], 1, "one refusal, then the one retry that was asked for")
            Thread.sleep(forTimeInterval: 6)
            XCTAssertEqual(standIn.pushes.filter { $0.deviceToken == token }.count, 1, "sent once")
        }
    }

    /// APNs refuses every push: the fallback is retried until the end of its lifetime
    /// (`expiresAfter: "12s"`), then recorded `expired`, and nothing is sent after it.
    func testAFallbackThatNeverGetsThroughIsRecordedExpiredAtTheEndOfItsLifetime() throws {
        try withStandIn(expiresAfter: "12s") { standIn, harness, token in
            var failures = APNsFailurePlan()
            failures.set(.status(503, reason: "ServiceUnavailable"), forToken: token)
            standIn.failures = failures
            let moment = Date().addingTimeInterval(2)
            try harness.scheduleWorkout("max", at: moment)
            let deadline = Date().addingTimeInterval(40)
            var statuses: [String: String] = [:]
            while Date() < deadline {
                statuses = try harness.pool.withConnection { db in
                    var out: [String: String] = [:]
                    for row in try db.query("SELECT kind, status FROM deliveries") { out[try row.decode("kind")] = try row.decode("status") }
                    return out
                }
                if statuses["fallback"] == "expired" { break }
                Thread.sleep(forTimeInterval: 0.5)
            }
            XCTAssertEqual(statuses["fallback"], "expired")
            XCTAssertEqual(statuses["plan"], "expired", "the plan's time ran out before its moment")
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(moment), 10, "retried until close to its lifetime's end")
            let tries = standIn.statistics.answersByStatus[503] ?? 0
            XCTAssertGreaterThan(tries, 4, "tried again after the first round")
            Thread.sleep(forTimeInterval: 6)
            XCTAssertEqual(standIn.statistics.answersByStatus[503] ?? 0, tries, "nothing is sent once it expired")
            XCTAssertTrue(standIn.pushes.isEmpty)
        }
    }

    /// Runs `body` with the stand-in, the real provider pointed at it, a pipeline over them with
    /// leg day (`expiresAfter` on its send when given), and one device of "max".
    private func withStandIn(expiresAfter: String? = nil, _ body: (APNsStandIn, PipelineHarness, String) throws -> Void) throws {
        let (standIn, provider, directory) = try makeStandIn()
        defer { standIn.stop(); provider.close(); try? FileManager.default.removeItem(atPath: directory) }
        let harness = try PipelineHarness(provider: provider)
        defer { harness.shutdown() }
        try harness.putLegDay(expiresAfter: expiresAfter)
        try body(standIn, harness, try harness.subscriber("max", devices: 1)[0])
    }

    /// The stand-in started with a fresh test CA and provider key, the real provider pointed at
    /// it, and the folder holding the CA (remove it when done).
    private func makeStandIn() throws -> (APNsStandIn, APNsProvider, String) {
        let directory = NSTemporaryDirectory() + "buzzkit-apns-\(UUID().uuidString)"
        let files = try StandInCredentials.generate().write(to: directory)
        let key = try ProviderKeyPair.generate()
        let standIn = try APNsStandIn(configuration: APNsStandInConfiguration(credentials: try StandInCredentials(
            caCertificatePEM: String(contentsOfFile: files.caCertificate, encoding: .utf8),
            serverCertificatePEM: String(contentsOfFile: files.serverCertificate, encoding: .utf8),
            serverPrivateKeyPEM: String(contentsOfFile: files.serverPrivateKey, encoding: .utf8)), providerKeys: [key]))
        try standIn.start()
        let provider = try APNsProvider(configuration: APNsConfiguration(keyID: key.keyID, teamID: key.teamID, privateKeyPEM: key.privateKeyPEM,
                                                                         baseURL: standIn.baseURL, extraCAFile: files.caCertificate))
        return (standIn, provider, directory)
    }
}
