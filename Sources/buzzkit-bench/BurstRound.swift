import AMQPClient
import BuzzCrypto
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import PushDeliveryTesting

/// One 07:00 burst, through the pipeline the bench started: an event per subscriber plans a
/// window an hour ahead, a share of the devices acknowledge their plans, then every window's
/// moment is made due in the same second. Measures how long until every window is decided
/// (the fallbacks sent, the acknowledged windows settled), the CPU each process spent per
/// window, a profile of each, and when the settled windows' runs were written.
struct BurstRound {
    let runtime: Runtime
    let push: InMemoryPushProvider
    let topology: Topology
    let tenantId: String
    let windows: Int

    /// `acknowledgedEvery`: 2 acknowledges all but every other plan's (50 %), 10 all but every
    /// tenth's (90 %).
    func run(acknowledgedEvery: Int, label: String, measurePlanning: Bool, report: inout BenchReport) throws {
        // Windows planned: events to plans on devices.
        push.removeAllSent()
        let moment = RFC3339.format(Date().addingTimeInterval(3600))
        let started = Date(), planningCPU = ProcessCPU.sample()
        var batch: [AMQPMessage] = []
        for n in 1...windows {
            let event = BuzzEvent(event: "workout.scheduled", subscriberId: "s\(n)", properties: ["at": .string(moment)], timestamp: Date())
            batch.append(AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: tenantId, event: event.event),
                                     body: event.jsonData, messageId: RandomIdentifier.text()))
            if batch.count == 500 || n == windows {
                try runtime.publisher.publishAndWait(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try PipelineBench.waitUntil("plans sent") { push.sent.count >= windows }
        if measurePlanning {
            report.add("pipeline: local windows planned end to end (event → run → plan sent)", Double(windows) / Date().timeIntervalSince(started),
                       unit: "windows/s")
            let used = ProcessCPU.sample() - planningCPU
            used.report("pipeline: planned end to end", windows: windows, into: &report)
            // One broker message a window (its event): beside the broker's CPU per message with
            // the raw C client (publish with confirms, consume with acks; `make bench` measures it).
            if let raw = ProcessInfo.processInfo.environment["RAW_AMQP_CPU_US"].flatMap(Double.init) {
                report.add("pipeline: planned end to end: RabbitMQ CPU per event, against a raw message", used.rabbitmq * 1e6 / Double(windows),
                           unit: "µs", raw: raw)
            }
        }

        // Devices acknowledge their plans, all but one in `acknowledgedEvery`.
        let sent = push.sent
        let ackStarted = Date()
        var acks: [AMQPMessage] = []
        var roundRuns: [UUID] = []
        for notification in sent {
            guard let plan = try? SilentPlanPayload(jsonData: notification.payload).local,
                  let number = Int(notification.deviceToken, radix: 16) else { continue }
            roundRuns += UUID(uuidString: String(plan.id.prefix { $0 != "/" })).map { [$0] } ?? []
            guard number % acknowledgedEvery != 0 else { continue }
            let event = BuzzEvent(event: BuzzEvent.localScheduled, subscriberId: "s\(number)",
                                  properties: ["localId": .string(plan.id), "messageId": .string(plan.messageId),
                                               "device": .string(notification.deviceToken)], timestamp: Date())
            acks.append(AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: tenantId, event: event.event),
                                    body: event.jsonData, messageId: RandomIdentifier.text()))
        }
        let acknowledgedBefore = runtime.metrics.counter("buzzkit_acknowledgments_total")
        let ackCPU = ProcessCPU.sample()
        for chunk in stride(from: 0, to: acks.count, by: 500) { try runtime.publisher.publishAndWait(Array(acks[chunk..<min(chunk + 500, acks.count)])) }
        try PipelineBench.waitUntil("acknowledgments recorded") {
            runtime.metrics.counter("buzzkit_acknowledgments_total") - acknowledgedBefore >= Double(acks.count)
        }
        if measurePlanning {
            report.add("pipeline: acknowledgments recorded", Double(acks.count) / Date().timeIntervalSince(ackStarted), unit: "acks/s")
            // From the first publish (the phones' decoding of their plans left out): each ack's
            // publish, routing, consumption and record.
            (ProcessCPU.sample() - ackCPU).report("pipeline: acknowledgments recorded (per acknowledgment)", windows: acks.count, into: &report)
        }

        // The burst: every fallback check of this round due in the same second.
        push.removeAllSent()
        let unacknowledged = windows - acks.count
        let decidedBefore = decided()
        let settledBefore = runtime.metrics.counter("buzzkit_windows_settled_total")
        let burstAt = try runtime.pool.withConnection { db -> Date in
            // On a real morning the acknowledgments came in hours before 07:00 and autovacuum
            // has long since cleaned up after the round's writes. Here they came seconds ago,
            // so autovacuum would start inside the measured second: it runs now instead
            // (`BENCH_VACUUM_BEFORE_BURST=0` leaves it to autovacuum, to compare).
            if ProcessInfo.processInfo.environment["BENCH_VACUUM_BEFORE_BURST"] != "0" {
                try db.execute("VACUUM (ANALYZE) acknowledgments, local_plans, deliveries, processed_events, runs, window_decisions")
            }
            let at: Date = try db.query("""
                UPDATE outbox SET available_at = now() + interval '4 seconds' WHERE routing_key = \(topology.name(.fallbackCheck))
                RETURNING available_at
                """).first?.decode("available_at") ?? Date()
            // Real timers were written once, hours before; the UPDATE left a dead version of
            // each row, which the claims would have to step over.
            try db.execute("VACUUM outbox")
            return at
        }
        let cpu = ProcessCPU.sample()
        let profile = PhaseProfile("burst")
        let statements = StatementProfile(pool: runtime.pool)
        // Watched through the workers' and schedulers' own counters: a count(*) over the runs
        // every few milliseconds would itself load PostgreSQL and slow what it measures.
        try PipelineBench.waitUntil("burst decided", timeout: 600) {
            decided() - decidedBefore >= Double(windows) && push.sent.count >= unacknowledged
        }
        // The fallback counters move just before each batch commits: then every window must
        // read as decided (its decision recorded, or its run completed without one: a snapshot
        // counts each window once, however long the burst takes).
        // The time is when the check that passed took its snapshot (as its statement began):
        // the check itself reads every run of the round and
        // took up to 0.4 s, which is the bench's reading, not the system's work.
        var committedAt = Date()
        try PipelineBench.waitUntil("burst committed", timeout: 60, every: 0.05) {
            let row = try runtime.pool.withConnection { db in
                try db.query("""
                    SELECT (SELECT count(*) FROM runs r WHERE id = ANY(\(roundRuns)::uuid[]) AND status = 'completed'
                              AND NOT EXISTS (SELECT 1 FROM window_decisions d WHERE d.run_id = r.id))
                         + (SELECT count(*) FROM window_decisions WHERE decided_at >= \(burstAt.addingTimeInterval(-1))) AS n,
                           statement_timestamp() AS at
                    """)[0]
            }
            committedAt = try row.decode("at")
            return try row.decode("n", as: Int.self) >= windows
        }
        let seconds = committedAt.timeIntervalSince(burstAt)
        profile.finish("pipeline: burst, \(label)", into: &report)
        statements.finish("pipeline: burst, \(label)", into: &report)
        (ProcessCPU.sample() - cpu).report("pipeline: burst, \(label)", windows: windows, into: &report)
        report.add("pipeline: fallback-check burst of \(windows) due in one second, \(label): all decided, \(unacknowledged) fallbacks sent",
                   seconds, unit: "s")
        report.add("pipeline:   burst rate", Double(windows) / seconds, unit: "windows/s")
        report.add("pipeline:   settled by the scheduler without a queue message",
                   runtime.metrics.counter("buzzkit_windows_settled_total") - settledBefore, unit: "windows")
        // The settled windows' runs are filed under completed once the completion delay has
        // passed; then the next round starts from a quiet system.
        // Watched through the decisions not filed yet (a small partial index): a count over
        // every run each 0.2 s would read the whole runs table and load what it measures.
        try PipelineBench.waitUntil("runs filed", timeout: 300, every: 0.2) {
            try runtime.pool.withConnection { db in
                try db.query("SELECT count(*) AS n FROM window_decisions WHERE filed IS NOT TRUE")[0].decode("n", as: Int.self)
            } == 0
        }
        report.add("pipeline:   every run filed completed (window completer, delay \(Int(runtime.configuration.completion.delaySeconds)) s)",
                   Date().timeIntervalSince(burstAt), unit: "s after the moment")
        let open = try runtime.pool.withConnection { db in
            try db.query("SELECT count(*) AS n FROM runs WHERE id = ANY(\(roundRuns)::uuid[]) AND status <> 'completed'")[0].decode("n", as: Int.self)
        }
        guard open == 0 else { throw BenchFailure("\(open) run(s) of the burst not completed after their decisions were written") }
        (ProcessCPU.sample() - cpu).report("pipeline: burst, \(label), with the completer's later writes", windows: windows, into: &report)
    }

    private func decided() -> Double {
        runtime.metrics.counter("buzzkit_fallback_checks_total", ["outcome": "fallback"])
            + runtime.metrics.counter("buzzkit_fallback_checks_total", ["outcome": "confirmed"])
    }
}
