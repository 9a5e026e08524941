import DeviceSimulator
import Foundation
import PostgresClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// BuzzKit as the end-to-end tests run it: the APNs stand-in in this process, a schema and
/// queue prefix of the test's own, a tenant, and `buzzkit api`, one worker per queue and the
/// scheduler as separate processes pointed at the stand-in. ``stop()`` drains them and drops
/// the schema.
final class ServerStack {
    let tag: String
    let directory: String
    let databaseURL: String
    let amqpURL: String
    let standIn: StandInServer
    let processes: ServerProcesses
    let port: Int
    /// `tenant create --json`: tenantId, secretKey, publishableKey, signingSecret.
    let keys: [String: String]
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts everything under a fresh tag beginning with `prefix`, and waits until the API is ready.
    init(prefix: String) async throws {
        let environment = ProcessInfo.processInfo.environment
        databaseURL = environment["BUZZKIT_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/buzzkit"
        amqpURL = environment["BUZZKIT_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:55672/%2f"
        tag = prefix + "_" + UUID().uuidString.prefix(8).lowercased()
        directory = NSTemporaryDirectory() + tag
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        standIn = try StandInServer(directory: directory)
        port = 20_000 + Int.random(in: 0..<10_000)
        var server = standIn.serverEnvironment(base: environment, databaseURL: databaseURL, amqpURL: amqpURL, tag: tag, httpPort: port)
        server["BUZZKIT_SHUTDOWN_GRACE_SECONDS"] = "5"
        let processes = ServerProcesses(environment: server, logDirectory: directory)
        self.processes = processes
        do {
            _ = try processes.run(["migrate", "--schema", tag])
            let keysJSON = try processes.run(["tenant", "create", "\(prefix)-gym", "--json"])
            keys = (try JSONSerialization.jsonObject(with: Data(keysJSON.utf8)) as? [String: String]) ?? [:]
            try processes.start("api", ["api"])
            for queue in ["trigger", "trigger-bulk", "plan-dispatch", "plan-dispatch-bulk", "ack-ingest", "fallback-check"] {
                try processes.start("worker-\(queue)", ["worker", "--queues", queue])
            }
            try processes.start("scheduler", ["scheduler"])
            try await ServerProcesses.waitUntilReady(port: port)
        } catch {
            // Nothing of a stack that did not come up stays behind (its logs do, for the failure).
            _ = processes.stop(grace: 5)
            standIn.standIn.stop()
            if let db = try? PostgresConnection(url: databaseURL) { _ = try? db.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(tag) CASCADE")) }
            throw error
        }
    }

    /// A fleet of `subscribers` phones against this stack, behaviours dealt from `mix`.
    func fleet(subscribers: Int, mix: [Behaviour] = Behaviour.allCases, settleSeconds: Double = 8) -> FleetConfiguration {
        FleetConfiguration(apiBaseURL: baseURL, secretKey: keys["secretKey"] ?? "", publishableKey: keys["publishableKey"] ?? "",
                           signingSecret: keys["signingSecret"] ?? "", subscribers: subscribers, mix: mix, leadSeconds: 12, offlineSeconds: 2,
                           settleSeconds: settleSeconds, tag: tag)
    }

    /// SIGTERM to every process; returns those that did not drain and exit 0. Drops the schema
    /// and the folder.
    func stop() -> [String] {
        let unclean = processes.stop(grace: 10)
        standIn.standIn.stop()
        if let db = try? PostgresConnection(url: databaseURL) { _ = try? db.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(tag) CASCADE")) }
        try? FileManager.default.removeItem(atPath: directory)
        return unclean
    }
}
