import BuzzPipeline
import BuzzServerCore
import BuzzStore
import Foundation
import PostgresClient

/// Removes what BuzzKit no longer needs (``RetentionSettings``), run by `buzzkit scheduler`:
/// processed event ids past their deduplication window, finished runs past theirs with
/// their deliveries, acknowledgments, opens, chosen buttons and plans, devices inactive past theirs, and a tenant's previous signing secret
/// once its grace after a rotation has ended (it verifies nothing any more; kept, it would
/// be one more secret to leak).
///
/// Work goes in small batches, each its own short transaction (`LIMIT` with `SKIP LOCKED`,
/// found through the age indexes of migration 0010), with a pause between batches, so a
/// backlog of millions drains without long locks and without crowding out the pipeline.
/// Any number of schedulers may sweep at once: a run a sweeper has locked is skipped by
/// the others.
public final class RetentionSweeper: Service, @unchecked Sendable {
    public let name = "retention"
    let pool: PostgresPool
    let settings: RetentionSettings
    let metrics: Metrics?
    let log: Log?
    private let shutdownRequest = ShutdownRequest()

    public init(pool: PostgresPool, settings: RetentionSettings, metrics: Metrics? = nil, log: Log? = nil) {
        self.pool = pool
        self.settings = settings
        self.metrics = metrics
        self.log = log
    }

    /// Sweeps every interval until shut down. A failure (PostgreSQL away) is logged and the
    /// sweep tried again at the next interval.
    public func run() {
        while !shutdownRequest.wait(upTo: 0) {
            do {
                // A full batch means more may be due: go on after a pause.
                while true {
                    let removed = try sweepBatch(now: Date())
                    guard removed.eventIds >= settings.batch || removed.runs >= settings.batch || removed.devices >= settings.batch else { break }
                    if shutdownRequest.wait(upTo: settings.pauseSeconds) { return }
                }
            } catch {
                log?.warning("retention sweep failed; trying again at the next interval", ["error": "\(error)"])
            }
            if shutdownRequest.wait(upTo: settings.intervalSeconds) { return }
        }
    }

    public func shutdown(deadline: Date) { shutdownRequest.request(by: deadline) }

    /// Removes one batch of each kind due at `now`; returns how many of each it removed.
    @discardableResult
    public func sweepBatch(now: Date) throws -> (eventIds: Int, runs: Int, devices: Int) {
        let eventIds = try pool.withConnection { db in
            try db.query("""
                WITH gone AS (
                    DELETE FROM processed_events WHERE ctid = ANY(ARRAY(
                        SELECT ctid FROM processed_events WHERE processed_at < \(now.addingTimeInterval(-settings.eventIdDays * 86_400))
                        ORDER BY processed_at LIMIT \(settings.batch)))
                    RETURNING 1)
                SELECT count(*) AS n FROM gone
                """)[0].decode("n", as: Int.self)
        }
        let runs = try pool.withTransaction { db in
            // Every statement sees the same snapshot: the plans read give the acknowledgments'
            // exact keys, and are deleted with their runs (no foreign key does it, see 0012).
            try db.query("""
                WITH gone AS (
                    SELECT id FROM runs WHERE status IN ('completed', 'cancelled', 'failed')
                      AND updated_at < \(now.addingTimeInterval(-settings.runDays * 86_400))
                    ORDER BY updated_at LIMIT \(settings.batch) FOR UPDATE SKIP LOCKED),
                plans AS (SELECT tenant_id, subscriber_id, local_id FROM local_plans WHERE run_id IN (SELECT id FROM gone)),
                acks AS (DELETE FROM acknowledgments a USING plans p
                         WHERE a.tenant_id = p.tenant_id AND a.subscriber_id = p.subscriber_id AND a.local_id = p.local_id),
                planned AS (DELETE FROM local_plans WHERE run_id IN (SELECT id FROM gone)),
                sent AS (DELETE FROM deliveries WHERE run_id IN (SELECT id FROM gone)),
                opened AS (DELETE FROM opens WHERE run_id IN (SELECT id FROM gone)),
                acted AS (DELETE FROM notification_actions WHERE run_id IN (SELECT id FROM gone)),
                decided AS (DELETE FROM window_decisions WHERE run_id IN (SELECT id FROM gone)),
                removed AS (DELETE FROM runs WHERE id IN (SELECT id FROM gone) RETURNING 1)
                SELECT count(*) AS n FROM removed
                """)[0].decode("n", as: Int.self)
        }
        let devices = try pool.withConnection { db in
            try db.execute("""
                DELETE FROM devices WHERE id = ANY(ARRAY(
                    SELECT id FROM devices WHERE NOT active AND inactive_at < \(now.addingTimeInterval(-settings.inactiveDeviceDays * 86_400))
                    ORDER BY inactive_at LIMIT \(settings.batch)))
                """)
        }
        let tombstones = try pool.withConnection { db in
            try db.execute("""
                DELETE FROM erased_subscribers WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM erased_subscribers WHERE erased_at < \(now.addingTimeInterval(-settings.erasedSubscriberDays * 86_400))
                    ORDER BY erased_at LIMIT \(settings.batch)))
                """)
        }
        if tombstones > 0 { metrics?.increment("buzzkit_retention_removed_total", ["kind": "erased_subscriber"], by: Double(tombstones)) }
        // Few tenants rotate at a time: one statement, no batching needed.
        let secrets = try pool.withConnection { db in
            try db.execute("""
                UPDATE tenants SET previous_signing_secret = NULL, previous_signing_secret_until = NULL
                WHERE previous_signing_secret_until < \(now)
                """)
        }
        if secrets > 0 {
            log?.info("previous signing secrets cleared after their grace", ["tenants": "\(secrets)"])
        }
        if eventIds > 0 {
            metrics?.increment("buzzkit_retention_removed_total", ["kind": "event_id"], by: Double(eventIds),
                               help: "Rows removed past their retention window: processed event ids, finished runs, inactive devices")
        }
        if runs > 0 { metrics?.increment("buzzkit_retention_removed_total", ["kind": "run"], by: Double(runs)) }
        if devices > 0 { metrics?.increment("buzzkit_retention_removed_total", ["kind": "device"], by: Double(devices)) }
        return (eventIds, runs, devices)
    }
}
