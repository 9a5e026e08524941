import AMQPClient
import BuzzAPI
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery

/// The pipeline's figures, in process, over the real PostgreSQL and RabbitMQ with an
/// in-memory push provider (APNs figures are measured separately):
/// - sustained local windows: events → runs → plans sent, then acknowledgments recorded;
/// - the 07:00 burst: every fallback check due in the same second, decided and sent;
/// - timer lateness with a million timers pending.
enum PipelineBench {
    static func run(settings: BenchSettings, report: inout BenchReport) throws {
        let windows = Int(ProcessInfo.processInfo.environment["BENCH_WINDOWS"] ?? "") ?? 20_000
        let (runtime, push, topology) = try settings.pipelineRuntime("pipeline (\(windows) windows)", schema: "bench_pipeline", prefix: "bench.")
        defer { runtime.close() }

        let directory = PostgresDirectory(pool: runtime.pool)
        let tenant = try directory.createTenant(name: "bench")
        let workflow = try JSONDecoder().decode(JSONValue.self, from: Data("""
            {"key":"leg-day","trigger":{"event":"workout.scheduled"},"cancelOn":[{"event":"workout.completed"}],
             "steps":[{"name":"morning-of","waitUntil":{"at":"{{trigger.at}}"}},
                      {"name":"nudge","send":{"deliver":"local","title":"Leg day","body":"6:00 with Maya."}}]}
            """.utf8))
        try directory.putWorkflow(tenantId: tenant.tenantId, definition: WorkflowDefinition.parse(workflow), source: workflow)
        try runtime.pool.withConnection { db in
            try db.execute("""
                INSERT INTO subscribers (tenant_id, id, timezone) SELECT \(tenant.tenantId), 's' || n, 'Europe/Berlin' FROM generate_series(1, \(windows)) n
                """)
            try db.execute("""
                INSERT INTO devices (id, tenant_id, subscriber_id, token, topic, environment, platform)
                SELECT gen_random_uuid(), \(tenant.tenantId), 's' || n, lpad(to_hex(n), 64, '0'), 'com.example.gym', 'production', 'ios'
                FROM generate_series(1, \(windows)) n
                """)
        }

        let workers = runtime.workers(Topology.Queue.allCases)
        workers.start()
        // As one `buzzkit scheduler` process runs them: the scheduler with its relay loops,
        // and the window completer.
        let schedulers = [runtime.scheduler()]
        for scheduler in schedulers { Thread { scheduler.run() }.start() }
        let completer = runtime.windowCompleter(beside: schedulers[0], workers: workers)
        Thread { completer.run() }.start()
        defer {
            workers.stop(grace: 5)
            schedulers.forEach { $0.stop(); _ = $0.waitUntilStopped(timeout: 5) }
            completer.shutdown(deadline: Date())
        }

        // Phases 1–3: windows planned, a share acknowledged, then every moment in one second
        // (07:00). Once with half acknowledged, once with nine in ten.
        // `BENCH_BURSTS=0` skips them, to look at the sustained phases alone.
        let environment = ProcessInfo.processInfo.environment
        if environment["BENCH_BURSTS"] != "0" {
            let bursts = BurstRound(runtime: runtime, push: push, topology: topology, tenantId: tenant.tenantId, windows: windows)
            try bursts.run(acknowledgedEvery: 2, label: "50 % acknowledged", measurePlanning: true, report: &report)
            try bursts.run(acknowledgedEvery: 10, label: "90 % acknowledged", measurePlanning: false, report: &report)
        }

        // The API the phones acknowledge their plans through, in this process: its CPU is the
        // product's, the phones' requests the driver's (PhoneAckClient).
        // It has a runtime of its own, as `buzzkit api` is a process of its own: its own
        // PostgreSQL connections, not the workers' (whose batches would hold the phones'
        // acknowledgments waiting for a connection).
        let apiRuntime = try Runtime(configuration: runtime.configuration, push: push, component: "api", topology: topology,
                                     failFastPublishes: true)
        defer { apiRuntime.close() }
        let api = APIServer(runtime: apiRuntime, host: "127.0.0.1", port: 0)
        try api.start()
        defer { api.stop(grace: 2) }
        let phones = PhoneAckClient.Endpoint(port: api.port, credentials: tenant, metrics: apiRuntime.metrics)

        // Phase 4: whole windows at steady offered rates, every stage at once; each moment
        // `BENCH_SUSTAINED_LEAD` (5) seconds after its event.
        let lead = Double(environment["BENCH_SUSTAINED_LEAD"] ?? "") ?? 5
        let rates = (environment["BENCH_SUSTAINED_RATES"] ?? "2000 3500").split(separator: " ").compactMap { Int($0) }
        let seconds = Int(environment["BENCH_SUSTAINED_SECONDS"] ?? "") ?? 20
        // Retention is measured beside the first rate, one the machine carries.
        var first: (rate: Int, achieved: Double)?
        let bytesBefore = try WindowWrites.tableBytes(runtime.pool)
        var offeredWindows = 0
        for (index, rate) in rates.enumerated() {
            FileHandle.standardError.write(Data("pipeline: sustained windows at \(rate)/s for \(seconds) s...\n".utf8))
            // What came before (the subscribers and devices made above, an earlier phase's dead
            // rows) is vacuumed and analysed outside the phase, so no autovacuum of it lands in
            // the phase's CPU; autovacuum of the phase's own rows may.
            try runtime.pool.withConnection { db in try db.execute("VACUUM (ANALYZE) \(unsafeRaw: pipelineTables), subscribers, devices") }
            let phaseStarted = Date()
            let cpu = ProcessCPU.sample()
            let profile = index == rates.count - 1 ? PhaseProfile("sustained") : nil
            let statements = index == rates.count - 1 ? StatementProfile(pool: runtime.pool) : nil
            var used = ProcessCPU.sample() - cpu
            let sustainedWindows = SustainedWindows(runtime: runtime, push: push, topology: topology, tenantId: tenant.tenantId, subscribers: windows, phones: phones)
            let sustained = try sustainedWindows.run(rate: rate, seconds: seconds, lead: lead) {
                used = ProcessCPU.sample() - cpu
                profile?.finish("pipeline: sustained whole windows at \(rate)/s", into: &report)
                statements?.finish("pipeline: sustained whole windows at \(rate)/s", into: &report)
            }
            used.report("pipeline: sustained at \(rate)/s", windows: sustained.windows, driver: sustained.driverSeconds, into: &report)
            // The whole window: decided, then its run filed completed by the window completer
            // (its delay after the moment), so each phase pays for its own tail and no later
            // phase for it. Its dead rows are left to autovacuum, as in service: a VACUUM here
            // would charge a whole pass over every index of the tables (proportional to their
            // size, not to the phase) to the phase's windows.
            try waitUntil("sustained at \(rate)/s: every run filed", timeout: 300, every: 0.5) {
                try noRunOpen(runtime.pool, tenantId: tenant.tenantId, since: phaseStarted)
            }
            let whole = ProcessCPU.sample() - cpu
            let lateness = try sustainedWindows.lateness(of: sustained)
            report.add("pipeline: sustained at \(rate)/s: product CPU per whole window (decided, then its run filed)",
                       whole.product(driver: sustained.driverSeconds) * 1e6 / Double(sustained.windows), unit: "µs")
            report.add("pipeline: sustained whole windows (event → plan → ack → fallback decided), offered \(rate)/s for \(seconds) s",
                       sustained.achievedRate, unit: "windows/s")
            report.add("pipeline:   decision after the moment p50 (p99)",
                       lateness.p50 * 1000, unit: String(format: "ms (p99 %.0f ms)", lateness.p99 * 1000))
            report.add("pipeline:   windows acknowledged by their phone in time (decided scheduled on device)", Double(lateness.heldOnDevice),
                       unit: String(format: "of %d acknowledged", sustained.acknowledged))
            report.add("pipeline:   windows whose moment passed before the plan went out", Double(lateness.momentPassed),
                       unit: String(format: "of %d", sustained.windows))
            report.add("pipeline:   plans pushed after their moment", Double(sustained.planLateForMoment), unit: String(format: "of %d", sustained.windows))
            report.add("pipeline:   phones' acknowledgments (HTTP requests) recorded per transaction", sustained.requestsPerTransaction, unit: "requests")
            let waits = sustained.acknowledgmentWaits
            if !waits.isEmpty {
                report.add("pipeline:   phones' acknowledgments, push seen to 202, p50 (p99, slowest)", waits.percentile(0.5) * 1000,
                           unit: String(format: "ms (p99 %.0f ms, slowest %.0f ms, %d past the %.0f s lead)", waits.percentile(0.99) * 1000, waits.percentile(1) * 1000,
                                        waits.filter { $0 >= lead }.count, lead))
                report.add("pipeline:   of which in the API (its own time per request, on average)", sustained.apiSecondsPerAcknowledgment * 1000, unit: "ms")
            }
            FileHandle.standardError.write(Data("  pipeline: trigger backlog (events offered, no run yet) at each second: \(sustained.triggerBacklog.map(String.init).joined(separator: " "))\n".utf8))
            if first == nil { first = (rate, sustained.achievedRate) }
            offeredWindows += sustained.windows
        }

        // What a window writes, and what the sustained windows left on disk once finished.
        let writes = WindowWrites(runtime: runtime, push: push, topology: topology, tenantId: tenant.tenantId, subscribers: windows, phones: phones)
        let perKind = Int(environment["BENCH_WRITES_WINDOWS"] ?? "") ?? 10_000
        if perKind > 0 {
            FileHandle.standardError.write(Data("pipeline: what a window writes (\(perKind) acknowledged, then \(perKind) falling back)...\n".utf8))
            if offeredWindows > 0 {
                try writes.settle()
                let storage = WindowWrites.storage(before: bytesBefore, after: try WindowWrites.tableBytes(runtime.pool), windows: offeredWindows)
                report.add("pipeline: storage per finished window, after the \(offeredWindows) sustained windows (target ≤ 1,536)", storage.total,
                           unit: "bytes (\(storage.byTable))")
            }
            let acknowledged = try writes.count(windows: perKind, acknowledged: true)
            let fallback = try writes.count(windows: perKind, acknowledged: false)
            report.sections += WindowWrites.Counts.table(acknowledged: acknowledged, fallback: fallback, windows: perKind)
        }

        // Phase 5: what operators need, on the same tables.
        let management = ManagementBench(runtime: runtime, push: push, topology: topology, tenantId: tenant.tenantId, subscribers: windows, phones: phones)
        if let first, let expired = Int(environment["BENCH_EXPIRED_RUNS"] ?? "1000000"), expired > 0 {
            try management.retentionBesideSustained(expired: expired, rate: first.rate, seconds: seconds, baseline: first.achieved, report: &report)
        }
        try management.pagination(report: &report)
    }

    /// The tables a window writes.
    static let pipelineTables = "runs, local_plans, window_decisions, outbox, deliveries, acknowledgments, processed_events"

    /// Whether none of the tenant's runs (those created at or after `since`, when given) is
    /// still running or waiting; with `decidedIsClosed`, a run whose window is decided but not
    /// filed yet counts as closed. It asks whether one such run exists, which the newest runs
    /// answer at once while the phase is busy: the look's PostgreSQL time falls inside the
    /// phase's CPU (a count every half second was 2-3 % of it).
    static func noRunOpen(_ pool: PostgresPool, tenantId: String, since: Date? = nil, decidedIsClosed: Bool = false) throws -> Bool {
        let created: PostgresQuery = since.map { "AND created_at >= \($0)" } ?? ""
        let undecided: PostgresQuery = decidedIsClosed ? "AND NOT EXISTS (SELECT 1 FROM window_decisions d WHERE d.run_id = r.id)" : ""
        return try pool.withConnection { db in
            try db.query("""
                SELECT NOT EXISTS (SELECT 1 FROM runs r WHERE tenant_id = \(tenantId) AND status IN ('running', 'waiting') \(created) \(undecided)) AS done
                """)[0].decode("done", as: Bool.self)
        }
    }

    static func waitUntil(_ what: String, timeout: TimeInterval = 300, every: TimeInterval = 0.02, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { throw BenchFailure("\(what): not done within \(Int(timeout)) s") }
            Thread.sleep(forTimeInterval: every)
        }
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
