import APNsStandIn
import BuzzKitWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A fault drill: BuzzKit's real processes (api, a worker per queue, scheduler) under a
/// supervisor, a fleet of simulated phones posting waves of plans, a canary walking every
/// stage, and faults injected one after another at moments when work is in flight. The
/// report says whether any person lost or got a notification twice, and how long the system
/// took to work again after each fault.
public final class FaultDrill: @unchecked Sendable {
    public let configuration: FaultDrillConfiguration
    private var random: SplitMix64

    public init(configuration: FaultDrillConfiguration) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.seed)
    }

    private func say(_ line: String) { configuration.progress?(line) }

    /// Runs the drill; throws only when it cannot be set up (a finding is in the report).
    public func run() async throws -> FaultDrillReport {
        let c = configuration
        try FileManager.default.createDirectory(atPath: c.workDirectory, withIntermediateDirectories: true)
        let server = try StandInServer(directory: c.workDirectory)
        let router = server.router
        defer { server.standIn.stop() }
        var environment = server.serverEnvironment(base: ProcessInfo.processInfo.environment.merging(c.serverEnvironment) { $1 },
                                                   databaseURL: c.databaseURL, amqpURL: c.amqpURL, tag: c.tag, httpPort: c.httpPort)
        environment["BUZZKIT_LOG_FORMAT"] = "json"
        environment["BUZZKIT_SHUTDOWN_GRACE_SECONDS"] = environment["BUZZKIT_SHUTDOWN_GRACE_SECONDS"] ?? "5"
        let supervisor = ProcessSupervisor(binary: c.binary, environment: environment, logDirectory: c.workDirectory)
        supervisor.restartDelay = c.restartDelay

        say("migrating schema \(c.tag), creating the tenant, starting api, workers and scheduler (logs in \(c.workDirectory))")
        _ = try supervisor.run(["migrate", "--schema", c.tag])
        let keysJSON = try supervisor.run(["tenant", "create", "chaos-gym", "--json"])
        guard let keys = try JSONSerialization.jsonObject(with: Data(keysJSON.utf8)) as? [String: String],
              let secret = keys["secretKey"], let publishable = keys["publishableKey"], let signing = keys["signingSecret"] else {
            throw SimulatorError("buzzkit tenant create printed no keys: \(keysJSON)")
        }
        try supervisor.start("api", ["api"])
        for queue in Self.queues {
            for replica in 0..<max(1, c.workerReplicas) {
                try supervisor.start("worker-\(queue)" + (replica == 0 ? "" : "-\(replica + 1)"), ["worker", "--queues", queue])
            }
        }
        try supervisor.start("scheduler", ["scheduler"])
        let base = URL(string: "http://127.0.0.1:\(c.httpPort)")!
        var unclean: [String] = []
        do {
            try await waitUntilReady(base)
            let report = try await drill(base: base, secret: secret, publishable: publishable, signing: signing,
                                         router: router, supervisor: supervisor)
            unclean = supervisor.stop(grace: 15)
            return report.with(unclean: unclean)
        } catch {
            _ = supervisor.stop(grace: 15)
            throw error
        }
    }

    /// Every work queue of both lanes: a tenant's events past its interactive allowance are
    /// handled in the bulk lane.
    static let queues = ["trigger", "trigger-bulk", "plan-dispatch", "plan-dispatch-bulk", "ack-ingest", "fallback-check"]

    /// Every behaviour but the crowded ones (whose dozens of plans a subscriber would swamp the
    /// drill's waves; they run in the fleet of `make test` and `make bench`).
    static let mix = Behaviour.allCases.filter { ![.crowded, .crowdedTwoDevices].contains($0) }

    private func drill(base: URL, secret: String, publishable: String, signing: String, router: PushRouter,
                       supervisor: ProcessSupervisor) async throws -> FaultDrillReport {
        let c = configuration
        let waves = WaveBox()
        var fleetConfiguration = FleetConfiguration(apiBaseURL: base, secretKey: secret, publishableKey: publishable, signingSecret: signing,
                                                    subscribers: c.subscribers, mix: Self.mix, leadSeconds: c.lead, settleSeconds: 10, tag: c.tag)
        fleetConfiguration.waves = c.waves
        fleetConfiguration.waveInterval = c.waveInterval
        fleetConfiguration.retryWindow = c.recoveryTimeout
        fleetConfiguration.onWavesPlanned = { waves.set($0) }

        let canary = try CanaryProbe(configuration: fleetConfiguration, router: router, timeout: c.recoveryTimeout)
        try await canary.setUp()
        let baseline = await canary.next()
        guard let baselineEnd = baseline.end else { throw SimulatorError("the canary fails before any fault: \(baseline.problem ?? "?")") }
        let baselineSeconds = baselineEnd.timeIntervalSince(baseline.start)
        say(String(format: "canary round trip before any fault: %.2f s", baselineSeconds))

        let fleet = Fleet(configuration: fleetConfiguration, router: router)
        let fleetTask = Task { try await fleet.run() }
        let canaryTask = Task { await canary.loop() }
        var outcomes: [FaultDrillReport.FaultOutcome] = []
        let planned = await waves.wait()
        var used = Set<Date>()
        for fault in c.faults {
            let at = landingTime(for: fault, waves: planned, after: Date(), used: &used)
            let wait = at.timeIntervalSinceNow
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            let outcome = await inject(fault, supervisor: supervisor, canary: canary)
            say(outcome.line)
            outcomes.append(outcome)
        }
        say("faults done; waiting for the last wave's moment and the fleet report")
        let fleetReport = try await fleetTask.value
        canary.stop()
        await canaryTask.value
        await canary.stopPhones()
        return FaultDrillReport(fleet: fleetReport, faults: outcomes, baselineProbe: baselineSeconds,
                                probes: canary.all.count, probeProblems: canary.all.compactMap(\.problem),
                                lateProbes: canary.all.filter(\.late).count,
                                canaryDuplicates: canary.duplicates, canaryRepeats: canary.repeatedProbes, canaryCollapsedRepeats: canary.collapsedRepeats,
                                unexpectedExits: supervisor.exits.filter { !$0.expected }.map { "\($0.name) exited \($0.status) at \(RFC3339.format($0.at))" },
                                deadLettered: await deadLetters(base), seed: c.seed)
    }

    /// The next moment in a wave (not used yet) where `fault` hits work in flight, with jitter.
    private func landingTime(for fault: Fault, waves: [FleetWave], after now: Date, used: inout Set<Date>) -> Date {
        let candidates: [(Date, ClosedRange<Double>)]
        switch fault.anchor {
        case .posted(let offset): candidates = waves.map { ($0.postAt, offset) }
        case .moment(let offset): candidates = waves.map { ($0.moment, offset) }
        }
        for (anchor, offset) in candidates where !used.contains(anchor) {
            let at = anchor.addingTimeInterval(random.next(in: offset))
            if at > now.addingTimeInterval(0.5) { used.insert(anchor); return at }
        }
        return now.addingTimeInterval(random.next(in: 0.5...2))
    }

    private func inject(_ fault: Fault, supervisor: ProcessSupervisor, canary: CanaryProbe) async -> FaultDrillReport.FaultOutcome {
        let injectedAt = Date()
        var backAt: Date?
        switch fault {
        case .killWorker(let queue):
            let name = "worker-\(queue)"
            let before = supervisor.startedAt(name)
            supervisor.signal(name, SIGKILL)
            while supervisor.startedAt(name) == before, Date().timeIntervalSince(injectedAt) < 30 {
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
            backAt = supervisor.startedAt(name)
        case .pauseScheduler(let seconds):
            supervisor.signal("scheduler", SIGSTOP)
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            supervisor.signal("scheduler", SIGCONT)
            backAt = Date()
        case .pauseWorker(let queue, let seconds):
            supervisor.signal("worker-\(queue)", SIGSTOP)
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            supervisor.signal("worker-\(queue)", SIGCONT)
            backAt = Date()
        case .restartPostgres:
            backAt = await Self.runScript([configuration.servicesScript, "restart-postgres"]) ? Date() : nil
        case .restartRabbitMQ:
            backAt = await Self.runScript([configuration.servicesScript, "restart-rabbitmq"]) ? Date() : nil
        case .killRabbitMQLeader:
            guard await Self.runScript([configuration.servicesScript, "cluster-kill-rabbitmq-leader"]) else { break }
        case .killPostgresPrimary:
            guard await Self.runScript([configuration.servicesScript, "cluster-kill-postgres-primary"]) else { break }
        }
        // Recovered: a canary probe that started after the fault walked every stage.
        let deadline = injectedAt.addingTimeInterval(configuration.recoveryTimeout + 10)
        var recovered: Date?
        while Date() < deadline {
            if let probe = canary.firstCompleted(startedAfter: injectedAt) { recovered = probe.end; break }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        if fault.losesClusterNode {
            // The lost node comes back and rejoins (as a standby, for PostgreSQL's old primary).
            backAt = await Self.runScript([configuration.servicesScript, "cluster-restore"]) ? Date() : nil
        }
        return .init(fault: fault.description, injectedAt: injectedAt, serviceBackAfter: backAt.map { $0.timeIntervalSince(injectedAt) },
                     recoveredAfter: recovered.map { $0.timeIntervalSince(injectedAt) })
    }

    /// Runs a shell script to completion on a thread of its own.
    static func runScript(_ argv: [String]) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let process = ["/bin/bash"] + argv
                var pid: pid_t = 0
                let args = process.map { strdup($0) } + [nil]
                defer { args.forEach { free($0) } }
                guard posix_spawn(&pid, "/bin/bash", nil, nil, args, environ) == 0 else { continuation.resume(returning: false); return }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: status == 0)
            }
        }
    }

    private func waitUntilReady(_ base: URL) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let (_, response) = try? await URLSession.shared.data(from: base.appendingPathComponent("readyz")),
               (response as? HTTPURLResponse)?.statusCode == 200 { return }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        throw SimulatorError("the API did not become ready at \(base)")
    }

    /// Messages in the dead-letter queues, from the API's /metrics (exact broker depths).
    private func deadLetters(_ base: URL) async -> [String: Int] {
        guard let (data, _) = try? await URLSession.shared.data(from: base.appendingPathComponent("metrics")) else { return ["(metrics unavailable)": -1] }
        var out: [String: Int] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("buzzkit_queue_messages{") && line.contains(".dlq\"") {
            guard let open = line.firstIndex(of: "\""), let close = line[line.index(after: open)...].firstIndex(of: "\""),
                  let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            out[String(line[line.index(after: open)..<close])] = Int(value)
        }
        return out
    }
}

/// Hands the fleet's wave plan from its callback to the drill.
final class WaveBox: @unchecked Sendable {
    private let lock = NSLock()
    private var waves: [FleetWave]?
    func set(_ waves: [FleetWave]) { lock.lock(); self.waves = waves; lock.unlock() }
    private var current: [FleetWave]? { lock.lock(); defer { lock.unlock() }; return waves }
    func wait() async -> [FleetWave] {
        while true {
            if let value = current { return value }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
    }
}
