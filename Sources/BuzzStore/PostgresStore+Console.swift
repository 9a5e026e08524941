import BuzzServerCore
import Foundation
import PostgresClient

/// The console's reads (``MinuteActivity``): a tenant's last hour, by minute.
extension PostgresStoreTransaction {
    func minuteActivity(tenantId: String, since: Date, until: Date) throws -> [MinuteActivity] {
        var found: [Date: MinuteActivity] = [:]
        for row in try db.query("""
            SELECT date_trunc('minute', created_at) AS minute, kind, status, count(*)::int AS n FROM deliveries
            WHERE created_at >= \(since) AND created_at <= \(until) AND tenant_id = \(tenantId)
            GROUP BY 1, 2, 3
            """) {
            let minute: Date = try row.decode("minute")
            found[minute, default: MinuteActivity(minute: minute)].count(kind: try row.decode("kind"), status: try row.decode("status"),
                                                                          try row.decode("n"))
        }
        // A window is counted by how it was decided: its fallback (the plan's
        // `fallback_decided_at`, set where the fallback is decided), else a device's
        // acknowledgment on record; one cancelled before either is in neither.
        for row in try db.query("""
            SELECT date_trunc('minute', p.moment) AS minute,
                   count(*) FILTER (WHERE p.fallback_decided_at IS NOT NULL)::int AS fallback,
                   count(*) FILTER (WHERE p.fallback_decided_at IS NULL AND EXISTS (
                       SELECT 1 FROM acknowledgments a WHERE a.tenant_id = p.tenant_id AND a.subscriber_id = p.subscriber_id
                                                          AND a.local_id = p.local_id AND a.scheduled_ts IS NOT NULL))::int AS acknowledged
            FROM local_plans p
            WHERE p.moment >= \(since) AND p.moment <= \(until) AND p.tenant_id = \(tenantId)
            GROUP BY 1
            """) {
            let minute: Date = try row.decode("minute")
            found[minute, default: MinuteActivity(minute: minute)].fallback = try row.decode("fallback")
            found[minute, default: MinuteActivity(minute: minute)].acknowledged = try row.decode("acknowledged")
        }
        return found.values.sorted { $0.minute < $1.minute }
    }
}
