import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import PushDeliveryTesting

/// The operators' figures, on the pipeline bench's schema (after its phases):
/// - retention: 1,000,000 expired runs (each with a delivery) removed by the sweeper while
///   the sustained whole-window figure runs again, beside the same figure without it;
/// - run search: page 1 and page 1,000 of one subscriber's 100,000 runs.
struct ManagementBench {
    let runtime: Runtime
    let push: InMemoryPushProvider
    let topology: Topology
    let tenantId: String
    let subscribers: Int
    /// The API the phones acknowledge through.
    let phones: PhoneAckClient.Endpoint

    /// Clones a finished run of the tenant `count` times for `subscriber`, created (and last
    /// changed) `ageDays` ago, one second apart; with one delivery each when `deliveries`.
    func cloneRuns(_ count: Int, subscriber: String, ageDays: Int, deliveries: Bool) throws {
        try runtime.pool.withConnection { db in
            for start in stride(from: 0, to: count, by: 100_000) {
                let n = min(100_000, count - start)
                try db.execute("""
                    WITH model AS (SELECT * FROM runs WHERE tenant_id = \(tenantId) AND status = 'completed' LIMIT 1),
                    made AS (
                        INSERT INTO runs (id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, status, cancel_events, state,
                                          created_at, updated_at)
                        SELECT gen_random_uuid(), m.tenant_id, m.workflow_key, m.workflow_version, \(subscriber), false, false, 'completed', '{}', m.state,
                               now() - \(ageDays) * interval '1 day' - (\(start) + g) * interval '1 second',
                               now() - \(ageDays) * interval '1 day' - (\(start) + g) * interval '1 second'
                        FROM model m, generate_series(1, \(n)) g
                        RETURNING id, tenant_id)
                    INSERT INTO deliveries (tenant_id, run_id, idempotency_key, device_id, kind, status, created_at)
                    SELECT tenant_id, id, id::text || '/nudge', gen_random_uuid(), 'plan', 'sent', now() FROM made WHERE \(deliveries)::boolean
                    """)
            }
        }
    }

    /// The sustained figure at `rate` with the sweeper removing `expired` runs beside it.
    func retentionBesideSustained(expired: Int, rate: Int, seconds: Int, baseline: Double, report: inout BenchReport) throws {
        FileHandle.standardError.write(Data("management: \(expired) expired runs, then the sustained windows with the sweeper beside them...\n".utf8))
        try cloneRuns(expired, subscriber: "expired", ageDays: 40, deliveries: true)
        try runtime.pool.withConnection { db in
            try db.execute("ANALYZE runs")
            try db.execute("ANALYZE deliveries")
        }
        let sweeper = runtime.retention()
        let removed = { runtime.metrics.counter("buzzkit_retention_removed_total", ["kind": "run"]) }
        let started = Date()
        let stopped = DispatchSemaphore(value: 0)
        Thread { sweeper.run(); stopped.signal() }.start()
        let windows = SustainedWindows(runtime: runtime, push: push, topology: topology, tenantId: tenantId, subscribers: subscribers, phones: phones)
        let sustained = try windows.run(rate: rate, seconds: seconds, lead: 5)
        let lateness = try windows.lateness(of: sustained)
        let removedDuring = removed()
        try PipelineBench.waitUntil("expired runs removed", timeout: 900, every: 0.5) { removed() >= Double(expired) }
        let drained = Date().timeIntervalSince(started)
        sweeper.shutdown(deadline: Date().addingTimeInterval(5))
        stopped.wait()
        report.add("management: sustained whole windows, offered \(rate)/s, with the sweeper removing expired runs beside them", sustained.achievedRate,
                   unit: String(format: "windows/s (%+.1f %% against the %.0f/s without it; %.0f runs removed meanwhile)",
                                (sustained.achievedRate / baseline - 1) * 100, baseline, removedDuring))
        report.add("management:   decision after the moment p50 (p99)", lateness.p50 * 1000,
                   unit: String(format: "ms (p99 %.0f ms)", lateness.p99 * 1000))
        report.add("management: \(expired) expired runs and their deliveries removed", drained,
                   unit: String(format: "s (%.0f runs/s)", Double(expired) / drained))
    }

    /// Page 1 and page 1,000 (100 runs a page) of one subscriber's 100,000 runs, through the
    /// code `GET /v1/runs` runs, best of five each.
    func pagination(report: inout BenchReport) throws {
        let count = 100_000
        FileHandle.standardError.write(Data("management: run search over one subscriber's \(count) runs...\n".utf8))
        try cloneRuns(count, subscriber: "paged", ageDays: 1, deliveries: false)
        try runtime.pool.withConnection { try $0.execute("ANALYZE runs") }
        let commands = RunCommands(context: runtime.context, broker: runtime.broker, outbox: PostgresOutbox(pool: runtime.pool))
        // The cursor that ends page 999: the 99,900th newest run.
        let cursor = try runtime.pool.withConnection { db in
            let row = try db.query("""
                SELECT id, (extract(epoch FROM created_at) * 1000000)::bigint AS us FROM runs WHERE tenant_id = \(tenantId) AND subscriber_id = 'paged'
                ORDER BY created_at DESC, id DESC OFFSET \(count - 101) LIMIT 1
                """)[0]
            return RunQuery.Cursor(createdMicros: try row.decode("us"), id: try row.decode("id"))
        }
        for (name, after) in [("page 1", RunQuery.Cursor?.none), ("page 1,000", cursor)] {
            var best = Double.infinity
            for _ in 0..<5 {
                let started = Date()
                let page = try commands.runs(tenantId: tenantId, RunQuery(subscriberId: "paged", after: after, limit: 101))
                best = min(best, Date().timeIntervalSince(started))
                guard page.count >= 100 else { throw BenchFailure("\(name) held \(page.count) runs") }
            }
            report.add("management: run search, \(name) of a subscriber's \(count) runs (100 a page)", best * 1000, unit: "ms (best of 5)")
        }
    }
}
