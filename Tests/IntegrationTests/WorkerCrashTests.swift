import APNsStandIn
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import XCTest

/// `buzzkit worker` processes killed with SIGKILL in the middle of their batches.
final class WorkerCrashTests: XCTestCase {
    func testKillingWorkersMidBatchLosesNoRunAndSendsNoFallbackTwice() throws {
        let directory = NSTemporaryDirectory() + "buzzkit-crash-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let credentials = try StandInCredentials.generate()
        let files = try credentials.write(to: directory)
        let key = try ProviderKeyPair.generate()
        let keyFiles = try key.write(to: directory)
        var standInConfiguration = APNsStandInConfiguration(credentials: credentials, providerKeys: [key])
        standInConfiguration.failures.latency = 0.02  // sends take a while, so kills land mid-batch
        let standIn = try APNsStandIn(configuration: standInConfiguration)
        try standIn.start()
        defer { standIn.stop() }

        // The pipeline's data and queues, with no in-process workers: subprocesses do the work.
        let harness = try PipelineHarness(workers: [])
        defer { harness.shutdown() }
        try harness.putLegDay()
        let people = (0..<60).map { "k\($0)" }
        let (tokens, moment) = try harness.workouts(for: people, in: 6)

        let binary = TestServices.repositoryRoot.appendingPathComponent(".build/debug/buzzkit").path
        var environment = ProcessInfo.processInfo.environment
        environment["BUZZKIT_DATABASE_URL"] = TestServices.databaseURL
        environment["BUZZKIT_DB_SCHEMA"] = harness.schema
        environment["BUZZKIT_AMQP_URL"] = TestServices.amqpURLString
        environment["BUZZKIT_QUEUE_PREFIX"] = harness.schema + "."
        environment["BUZZKIT_APNS_KEY_FILE"] = keyFiles.privateKey
        environment["BUZZKIT_APNS_KEY_ID"] = key.keyID
        environment["BUZZKIT_APNS_TEAM_ID"] = key.teamID
        environment["BUZZKIT_APNS_URL"] = standIn.baseURL
        environment["BUZZKIT_APNS_CA_FILE"] = files.caCertificate
        environment["BUZZKIT_BATCH_SIZE"] = "10"
        environment["BUZZKIT_LOG_FORMAT"] = "json"

        func startWorker() throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["worker"]
            process.environment = environment
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            return process
        }
        // Kill a worker every 0.7 s while plans go out and fallbacks come due; keep one alive.
        var killed = 0
        var current = try startWorker()
        let deadline = moment.addingTimeInterval(3)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.7)
            kill(current.processIdentifier, SIGKILL)
            current.waitUntilExit()
            killed += 1
            current = try startWorker()
        }
        defer { current.terminate(); current.waitUntilExit() }
        XCTAssertGreaterThanOrEqual(killed, 5)

        XCTAssertTrue(try TestServices.eventually(timeout: 60) {
            let runs = try harness.runs()
            return runs.count == people.count && runs.allSatisfy { $0.state.status == .completed }
        }, "every run completed despite \(killed) SIGKILLs")
        XCTAssertTrue(standIn.waitForPushes(count: people.count * 2, timeout: 10))
        Thread.sleep(forTimeInterval: 1)
        var fallbacks: [String: [String]] = [:]
        var plans: [String: Int] = [:]
        for push in standIn.pushes {
            if push.pushType == "alert" { fallbacks[push.deviceToken, default: []].append(push.collapseId ?? "") } else { plans[push.deviceToken, default: 0] += 1 }
        }
        var resent = 0
        for token in tokens {
            let ids = fallbacks[token] ?? []
            // A kill between APNs' answer and the commit resends under the same collapse id, which
            // the phone shows once; anything else would be a second notification.
            XCTAssertEqual(Set(ids).count, 1, "one fallback notification for \(token.prefix(8))")
            resent += max(0, ids.count - 1)
            XCTAssertGreaterThanOrEqual(plans[token] ?? 0, 1, "a plan reached \(token.prefix(8))")
        }
        // A kill between APNs' answers and the commit resends that batch's alerts (up to
        // BUZZKIT_BATCH_SIZE, 10); nothing else resends.
        XCTAssertLessThanOrEqual(resent, killed * 10, "at most one batch resent per kill: \(resent) after \(killed) kills")
    }
}
