import Foundation
import PostgresClient

extension PostgresStoreTransaction {
    func claimDelivery(tenantId: String, runId: UUID?, idempotencyKey: String, deviceId: UUID, kind: String, messageId: String?, at: Date) throws -> DeliveryClaim {
        let inserted = try db.execute("""
            INSERT INTO deliveries (tenant_id, run_id, idempotency_key, device_id, kind, status, message_id, created_at)
            VALUES (\(tenantId), \(runId), \(idempotencyKey), \(deviceId), \(kind), 'pending', \(messageId), \(at))
            ON CONFLICT (idempotency_key, device_id) DO NOTHING
            """)
        if inserted == 1 { return .send }
        // Someone else's claim: wait for its transaction (row lock), then look at the outcome.
        let status = try db.query("""
            SELECT status FROM deliveries WHERE idempotency_key = \(idempotencyKey) AND device_id = \(deviceId) FOR UPDATE
            """).first?.decode("status", as: String.self)
        // Sent, refused or unregistered: done. Failed earlier (APNs down, retries used up): try again.
        return status == "failed" ? .send : .alreadyDone
    }

    func finishDelivery(idempotencyKey: String, deviceId: UUID, outcome: DeliveryOutcome, at: Date) throws {
        try db.execute("""
            UPDATE deliveries SET status = \(outcome.status), apns_id = \(outcome.apnsId), http_status = \(outcome.httpStatus),
                   reason = \(outcome.reason), attempts = attempts + \(outcome.attempts),
                   sent_at = CASE WHEN \(outcome.status) = 'sent' THEN \(at)::timestamptz ELSE sent_at END
            WHERE idempotency_key = \(idempotencyKey) AND device_id = \(deviceId)
            """)
    }

    func planRecipients(runId: UUID) throws -> [DeviceRecord] {
        try db.query("""
            SELECT DISTINCT d.id, d.tenant_id, d.subscriber_id, d.platform, d.token, d.topic, d.environment, d.created_at FROM deliveries x
            JOIN devices d ON d.id = x.device_id
            WHERE x.run_id = \(runId) AND x.kind = 'plan' AND x.status IN ('sent', 'pending') AND d.active
            ORDER BY d.created_at, d.id
            """).map { try device($0, tenantId: try $0.decode("tenant_id"), subscriberId: try $0.decode("subscriber_id")) }
    }
}
