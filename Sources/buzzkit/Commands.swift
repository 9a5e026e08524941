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
        let workers = runtime.workers(queues)
        workers.start()
        runtime.log.info("worker started", ["queues": names.joined(separator: ",")])
        let signal = SignalWaiter.wait()
        SignalWaiter.exitOnNextSignal()
        runtime.log.info("draining", ["signal": "\(signal)", "grace": "\(configuration.shutdownGraceSeconds)"])
        workers.stop(grace: configuration.shutdownGraceSeconds)
        runtime.close()
        runtime.log.info("worker stopped")
    }

    /// `buzzkit api`: serve HTTP until SIGTERM, then answer what is in flight and close.
    static func api(_ configuration: Configuration) throws {
        let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "api", failFastPublishes: true)
        let server = APIServer(runtime: runtime, port: configuration.httpPort)
        try server.start()
        runtime.log.info("api listening", ["port": "\(server.port)"])
        _ = SignalWaiter.wait()
        SignalWaiter.exitOnNextSignal()
        server.stop(grace: configuration.shutdownGraceSeconds)
        runtime.close()
        runtime.log.info("api stopped")
    }

    /// `buzzkit dev`: api, every worker and the scheduler in one process, for local use.
    static func dev(_ configuration: Configuration) throws {
        var configuration = configuration
        if ProcessInfo.processInfo.environment["BUZZKIT_LOG_FORMAT"] == nil { configuration.logFormat = "human" }
        let runtime = try Runtime(configuration: configuration, push: try pushProvider(configuration), component: "dev")
        let server = APIServer(runtime: runtime, port: configuration.httpPort)
        let workers = runtime.workers(Topology.Queue.allCases)
        let scheduler = runtime.scheduler()
        workers.start()
        Thread { scheduler.run() }.start()
        try server.start()
        runtime.log.info("dev: api, workers and scheduler running", ["port": "\(server.port)"])
        _ = SignalWaiter.wait()
        SignalWaiter.exitOnNextSignal()
        server.stop(grace: configuration.shutdownGraceSeconds)
        workers.stop(grace: configuration.shutdownGraceSeconds)
        scheduler.stop()
        _ = scheduler.waitUntilStopped(timeout: configuration.shutdownGraceSeconds)
        runtime.close()
        runtime.log.info("dev stopped")
    }

    /// `buzzkit scheduler`: relay due outbox rows until SIGTERM.
    static func scheduler(_ configuration: Configuration) throws {
        let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "scheduler")
        let scheduler = runtime.scheduler()
        Thread { scheduler.run() }.start()
        runtime.log.info("scheduler started")
        _ = SignalWaiter.wait()
        SignalWaiter.exitOnNextSignal()
        scheduler.stop()
        _ = scheduler.waitUntilStopped(timeout: configuration.shutdownGraceSeconds)
        runtime.close()
        runtime.log.info("scheduler stopped")
    }

    /// `buzzkit tenant create NAME [--json]`, and the key commands (``tenantKeys(_:arguments:)``).
    static func tenant(_ configuration: Configuration, arguments: [String]) throws {
        if arguments.first == "keys" || arguments.first == "signing-secret" {
            let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "admin")
            defer { runtime.pool.close() }
            return try tenantKeys(Directory(pool: runtime.pool), arguments: arguments)
        }
        guard arguments.first == "create", arguments.count >= 2, !arguments[1].hasPrefix("--") else {
            throw ServerError(.invalidInput, tenantUsage)
        }
        let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "admin")
        defer { runtime.pool.close() }
        let credentials = try Directory(pool: runtime.pool).createTenant(name: arguments[1])
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
