import DeviceSimulator
import Foundation
import PostgresClient
import XCTest

/// The short fault drill (`make chaos` runs the long one): under a fleet of simulated phones
/// posting waves of plans, a worker of every queue is SIGKILLed while work is in flight, the
/// scheduler is paused across a moment, PostgreSQL and RabbitMQ are restarted. Nobody may
/// lose a notification or see one twice, every fault must be recovered from (a canary walks
/// every stage again), nothing may end in a dead-letter queue, and every process must still
/// drain and exit 0 on SIGTERM.
final class FaultDrillEndToEndTests: XCTestCase {
    func testNoNotificationIsLostOrDuplicatedThroughKillsPausesAndRestarts() async throws {
        let environment = ProcessInfo.processInfo.environment
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let databaseURL = environment["BUZZKIT_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/buzzkit"
        let tag = "drill_" + UUID().uuidString.prefix(8).lowercased()
        var configuration = FaultDrillConfiguration(
            binary: root.appendingPathComponent(".build/debug/buzzkit").path,
            servicesScript: root.appendingPathComponent("scripts/services.sh").path,
            databaseURL: databaseURL, amqpURL: environment["BUZZKIT_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:55672/%2f",
            workDirectory: NSTemporaryDirectory() + tag, tag: tag, httpPort: 20_000 + Int.random(in: 0..<10_000))
        configuration.subscribers = 144
        configuration.waves = 12
        configuration.waveInterval = 6
        configuration.lead = 10
        configuration.faults = Fault.standardDrill(rounds: 1, schedulerPause: 4)
        configuration.progress = { print($0) }
        var keepLogs = true
        defer {
            // The processes' logs and the drill's schema stay for a failed drill (the report
            // names the folder; the schema is the tag).
            if !keepLogs {
                try? FileManager.default.removeItem(atPath: configuration.workDirectory)
                if let db = try? PostgresConnection(url: databaseURL) { _ = try? db.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(tag) CASCADE")) }
            }
        }

        let report = try await FaultDrill(configuration: configuration).run()
        print(report.text)
        keepLogs = !report.violations.isEmpty
        XCTAssertEqual(report.violations, [], report.text)
        XCTAssertEqual(report.faults.count, 8, "every fault was injected")
        // 144 subscribers dealt over 18 behaviours, plus each of the 8 logout-switch phones'
        // second person and the 4 returning offline-through-cancel phones' second workout.
        XCTAssertEqual(report.fleet.outcomes.count, 144 + 8 + 4)
        XCTAssertGreaterThan(report.fleet.rows.reduce(0) { $0 + $1.exactlyOnce }, 70, "the fleet's plans were shown")
        XCTAssertGreaterThan(report.probes, 7, "the canary kept probing through the faults")
    }
}
