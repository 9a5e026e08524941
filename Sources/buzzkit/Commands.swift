import BuzzAPI
import BuzzServer
import Foundation
import PushDelivery

/// The long-running and admin commands of the `buzzkit` executable.
enum Commands {
    /// APNs when a key is configured; otherwise pushes are recorded as failed with a reason.
    static func pushProvider(_ configuration: Configuration) throws -> any PushProvider {
        guard let keyFile = configuration.apnsKeyFile, let keyId = configuration.apnsKeyId, let teamId = configuration.apnsTeamId else {
            return UnconfiguredPushProvider()
        }
        let pem: String
        do {
            pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        } catch {
            throw ServerError(.configuration, "cannot read the APNs key file \(keyFile): \(error.localizedDescription)", field: "BUZZKIT_APNS_KEY_FILE")
        }
        var apns = APNsConfiguration(keyID: keyId, teamID: teamId, privateKeyPEM: pem, baseURL: configuration.apnsURL, extraCAFile: configuration.apnsCAFile)
        apns.maxConnections = configuration.apnsConnections
        return try APNsProvider(configuration: apns)
    }

    static func value(_ flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// `buzzkit worker --queues a,b`: consume until SIGTERM, then drain.
    static func worker(_ configuration: Configuration, arguments: [String]) throws {
        let names = (value("--queues", in: arguments) ?? Topology.Queue.allCases.map(\.rawValue).joined(separator: ","))
            .split(separator: ",").map(String.init)
        let queues = try names.map { name -> Topology.Queue in
            guard let queue = Topology.Queue(rawValue: name) else {
                throw ServerError(.configuration, "unknown queue \"\(name)\"; choose from \(Topology.Queue.allCases.map(\.rawValue).joined(separator: ", "))", field: "--queues")
            }
            return queue
        }
        let runtime = try Runtime(configuration: configuration, push: try pushProvider(configuration), component: "worker")
        runtime.log.info("worker starting", ["queues": names.joined(separator: ",")])
        try serve([runtime.workers(queues)], runtime: runtime)
    }

    /// `buzzkit api`: serve HTTP until SIGTERM, then answer what is in flight and close.
    static func api(_ configuration: Configuration) throws {
        let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "api", failFastPublishes: true)
        runtime.log.info("api starting", ["port": "\(configuration.httpPort)"])
        try serve([APIServer(runtime: runtime, port: configuration.httpPort)], runtime: runtime)
    }

    /// `buzzkit dev`: api, every worker and the scheduler in one process, for local use.
    static func dev(_ configuration: Configuration) throws {
        var configuration = configuration
        if ProcessInfo.processInfo.environment["BUZZKIT_LOG_FORMAT"] == nil { configuration.logFormat = "human" }
        let runtime = try Runtime(configuration: configuration, push: try pushProvider(configuration), component: "dev")
        runtime.log.info("dev: api, workers and scheduler starting", ["port": "\(configuration.httpPort)"])
        let scheduler = runtime.scheduler(), workers = runtime.workers(Topology.Queue.allCases)
        try serve([APIServer(runtime: runtime, port: configuration.httpPort), workers, scheduler,
                   runtime.retention(), runtime.windowCompleter(beside: scheduler, workers: workers)], runtime: runtime)
    }

    /// `buzzkit scheduler`: relay due outbox rows (settling acknowledged windows), write settled
    /// windows into their runs, and remove what is past its retention, until SIGTERM.
    static func scheduler(_ configuration: Configuration) throws {
        let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "scheduler")
        runtime.log.info("scheduler starting")
        let scheduler = runtime.scheduler()
        try serve([scheduler, runtime.retention(), runtime.windowCompleter(beside: scheduler)], runtime: runtime)
    }

    /// Runs `services` until SIGTERM or SIGINT, then stops them and closes the runtime, all
    /// within `BUZZKIT_SHUTDOWN_GRACE_SECONDS` of the signal.
    static func serve(_ services: [any Service], runtime: Runtime) throws {
        try ServiceGroup(services, grace: runtime.configuration.shutdownGraceSeconds, log: runtime.log).run { deadline in
            runtime.close(by: deadline)
        }
        runtime.log.info("stopped")
    }

    /// `buzzkit tenant create NAME [--json]`, and the key commands (``tenantKeys(_:arguments:)``).
    static func tenant(_ configuration: Configuration, arguments: [String]) throws {
        if arguments.first == "keys" || arguments.first == "signing-secret" {
            let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "admin")
            defer { runtime.pool.close() }
            return try tenantKeys(PostgresDirectory(pool: runtime.pool), arguments: arguments)
        }
        guard arguments.first == "create", arguments.count >= 2, !arguments[1].hasPrefix("--") else {
            throw ServerError(.invalidInput, tenantUsage)
        }
        let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "admin")
        defer { runtime.pool.close() }
        let credentials = try PostgresDirectory(pool: runtime.pool).createTenant(name: arguments[1])
        if arguments.contains("--json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(credentials), as: UTF8.self))
        } else {
            print("""
                tenant          \(credentials.tenantId)
                secret key      \(credentials.secretKey)        (servers: Authorization: Bearer …)
                publishable key \(credentials.publishableKey)        (devices, with a subscriber token)
                signing secret  \(credentials.signingSecret)        (signs subscriber tokens)
                Keep these now: only hashes of the keys are stored.
                """)
        }
    }
}
