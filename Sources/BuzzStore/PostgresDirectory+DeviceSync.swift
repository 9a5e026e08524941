import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

/// Device sync and device lifecycle (contract §4b): the plans a device should hold, and a
/// device leaving a subscriber.
extension PostgresDirectory {
    /// The plans of the subscriber's live runs whose moment is after `now`, in moment order
    /// (then local id): each exactly the `bk.local` object its silent push carried.
    ///
    /// Live means `running` or `waiting` and not a dry run, so a run that was cancelled (by an
    /// event or the API), completed or failed contributes nothing, whatever its plans' moments.
    /// (Dry runs never record a plan; they are excluded all the same.) A plan is listed as soon
    /// as its run recorded it, which can be before the push reached the device.
    public func pendingPlans(tenantId: String, subscriberId: String, now: Date) throws -> [LocalPlan] {
        try pool.withConnection { db in
            // `local_plans_subscriber_moment` (0004) serves the range; each plan's run is read
            // by primary key, in a subquery that names only the run's id. As a join with the
            // run's status in the condition, the planner could walk every open run of the
            // tenant (`runs_open_by_subscriber`) and look each one's plans up: a generic plan
            // made while the tables were nearly empty did (the fleet all at once: 8.7 ms a
            // sync, 76 s of PostgreSQL in the burst's first minute), and so did a fresh plan
            // whenever the statistics counted fewer open runs than there were (13 ms for one
            // plan among 5,000 open runs, against 0.1 ms by primary key). Planned each time
            // (see `PostgresQuery.plannedEachTime()`).
            try db.query(Self.pendingPlansQuery(tenantId: tenantId, subscriberId: subscriberId, now: now)).map { row in
                // `payload` is the whole push body as recorded by the trigger stage
                // (`{"aps": …, "bk.local": …}`); read its plan back through the wire type, so
                // the answer has the contract's shape and key order.
                try LocalPlan(json: try JSONParser.parse(try row.decode("plan", as: String.self)), path: "bk.local")
            }
        }
    }

    /// The device sync's statement (``pendingPlans(tenantId:subscriberId:now:)``); its plan is
    /// pinned by `QueryPlanIntegrationTests`.
    static func pendingPlansQuery(tenantId: String, subscriberId: String, now: Date) -> PostgresQuery {
        ("""
        SELECT (p.payload -> 'bk.local')::text AS plan FROM local_plans p
        WHERE p.tenant_id = \(tenantId) AND p.subscriber_id = \(subscriberId) AND p.moment > \(now)
          AND (SELECT r.tenant_id = p.tenant_id AND r.status IN ('running', 'waiting') AND NOT r.dry_run FROM runs r WHERE r.id = p.run_id)
        ORDER BY p.moment, p.local_id
        """ as PostgresQuery).plannedEachTime()
    }

    /// Makes the subscriber's device with `token` inactive (`inactive_reason = reason`), so the
    /// pipeline sends it nothing more for this subscriber: plans, alerts and fallbacks go only
    /// to active devices, cancels only to active plan recipients of the run's own subscriber.
    /// Registering the token again (``putDevice(_:)``) makes it active again.
    ///
    /// An already inactive device keeps its first reason and time.
    public func deactivateDevice(tenantId: String, subscriberId: String, token: String, reason: String, at: Date) throws -> DeviceDeactivation {
        try pool.withConnection { db in
            let rows = try db.query("""
                WITH old AS (
                    SELECT id, active FROM devices
                    WHERE tenant_id = \(tenantId) AND subscriber_id = \(subscriberId) AND token = \(token) FOR UPDATE)
                UPDATE devices d SET active = false,
                    inactive_at = CASE WHEN old.active THEN \(at) ELSE d.inactive_at END,
                    inactive_reason = CASE WHEN old.active THEN \(reason) ELSE d.inactive_reason END,
                    updated_at = CASE WHEN old.active THEN \(at) ELSE d.updated_at END
                FROM old WHERE d.id = old.id
                RETURNING old.active AS was_active
                """)
            guard let row = rows.first else { return .notFound }
            return try row.decode("was_active", as: Bool.self) ? .deactivated : .alreadyInactive
        }
    }
}
