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

    /// APNs answers after 7 s, past the 5 s relay lease of the rows the trigger worker sends
    /// itself after its commit: the scheduler must not relay them and send the plan again.
    func testAnAPNsSlowerThanTheRelayLeaseIsSentEachPushOnce() throws {
        let (standIn, provider, directory) = try makeStandIn()
        defer { standIn.stop(); provider.close(); try? FileManager.default.removeItem(atPath: directory) }
        var slow = APNsFailurePlan()
        slow.latency = 7
        standIn.failures = slow
        let harness = try PipelineHarness(provider: provider)
        defer { harness.shutdown() }
        try harness.putLegDay()
        let tokens = try harness.subscriber("max", devices: 1)
        try harness.scheduleWorkout("max", at: Date().addingTimeInterval(3600))
        XCTAssertTrue(standIn.waitForPushes(count: 1, timeout: 15))
        Thread.sleep(forTimeInterval: 10)  // the lease passed long ago; a relay would have sent it again by now
        XCTAssertEqual(standIn.pushes.filter { $0.deviceToken == tokens[0] }.map(\.pushType), ["background"], "the plan went out once")
        let deliveries = try harness.pool.withConnection { try $0.query("SELECT count(*) AS n FROM deliveries")[0].decode("n", as: Int.self) }
        XCTAssertEqual(deliveries, 1)
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
