import Foundation
import PostgresClient

extension PlanHolding {
    /// The columns of a holding, read from `acknowledgments a`: the row's own, and `counts`,
    /// whether its device is still an active device of the subscriber (UNIQUE (tenant_id,
    /// token)). Both statements that read holdings select these: the acknowledgment lookup
    /// (``StoreTransaction/acknowledgments(tenantId:windows:)``) and the outbox's claim of due
    /// timers (``PostgresOutbox``), so the counting rule sees the same facts from either.
    static let columns: PostgresQuery = """
        a.local_id, a.device, a.message_id, a.acknowledged_at, a.scheduled_ts, a.released_ts,
        (a.device = '' OR EXISTS (SELECT 1 FROM devices d WHERE d.tenant_id = a.tenant_id AND d.token = a.device
                                  AND d.subscriber_id = a.subscriber_id AND d.active)) AS counts
        """

    /// A row that selected ``columns``.
    init(row: PostgresRow) throws {
        self.init(localId: try row.decode("local_id"), device: try row.decode("device"), messageId: try row.decode("message_id"),
                  acknowledgedAt: try row.decode("acknowledged_at"), scheduledAt: try row.decode("scheduled_ts"),
                  releasedAt: try row.decode("released_ts"), deviceCounts: try row.decode("counts"))
    }
}
