import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

/// The ``Directory`` port on PostgreSQL.
public struct PostgresDirectory: Directory {
    public let pool: PostgresPool
    let definitions = DefinitionCache()

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func ping() throws {
        _ = try pool.withConnection { try $0.query("SELECT 1") }
    }

    /// Creates a tenant with fresh keys; the keys are returned once and stored hashed.
    public func createTenant(name: String, defaultTimezone: String) throws -> TenantCredentials {
        let tenantId = "t_" + Digest.randomHex(byteCount: 8)
        let secret = APIKey.generate(.secret), publishable = APIKey.generate(.publishable)
        let signingSecret = "ss_" + Digest.randomHex(byteCount: 32)
        try pool.withTransaction { db in
            try db.execute("INSERT INTO tenants (id, name, default_timezone, signing_secret) VALUES (\(tenantId), \(name), \(defaultTimezone), \(signingSecret))")
            for key in [secret, publishable] {
                try db.execute("INSERT INTO tenant_keys (id, tenant_id, kind, secret_hash) VALUES (\(key.id), \(tenantId), \(key.kind.rawValue), \(key.secretHash))")
            }
        }
        return TenantCredentials(tenantId: tenantId, secretKey: secret.text, publishableKey: publishable.text, signingSecret: signingSecret)
    }

    /// The tenant and kind of a valid, unrevoked key (secret compared in constant time).
    public func authenticate(_ key: APIKey) throws -> (tenant: TenantRecord, kind: APIKey.Kind)? {
        try pool.withConnection { db in
            let rows = try db.query("""
                SELECT k.kind, k.secret_hash, t.id, t.name, t.default_timezone, t.quiet_start, t.quiet_end, t.signing_secret,
                       t.previous_signing_secret, t.previous_signing_secret_until, t.allowed_topics
                FROM tenant_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = \(key.id) AND k.revoked_at IS NULL
                """)
            guard let row = rows.first, Digest.constantTimeEqual(try row.decode("secret_hash"), key.secretHash),
                  try row.decode("kind", as: String.self) == key.kind.rawValue else { return nil }
            return (try Self.tenant(row), key.kind)
        }
    }

    static func tenant(_ row: PostgresRow) throws -> TenantRecord {
        var quiet: QuietHours?
        if let start = try row.decode("quiet_start", as: String?.self), let end = try row.decode("quiet_end", as: String?.self) {
            quiet = try? QuietHours.parse("\(start)-\(end)")
        }
        return TenantRecord(id: try row.decode("id"), name: try row.decode("name"), defaultTimezone: try row.decode("default_timezone"),
                            quietHours: quiet, signingSecret: try row.decode("signing_secret"),
                            previousSigningSecret: try row.decode("previous_signing_secret", as: String?.self),
                            previousSigningSecretUntil: try row.decode("previous_signing_secret_until", as: Date?.self),
                            allowedTopics: try row.decode("allowed_topics", as: JSONB<[String]>.self).value)
    }

    public func tenant(_ id: String) throws -> TenantRecord? {
        try pool.withConnection { try Self.tenant(id, on: $0) }
    }

    /// Reads a tenant on `db` (the directory's reads and the pipeline's transactions alike).
    static func tenant(_ id: String, on db: PostgresConnection) throws -> TenantRecord? {
        try db.query("""
            SELECT id, name, default_timezone, quiet_start, quiet_end, signing_secret, previous_signing_secret, previous_signing_secret_until,
                   allowed_topics
            FROM tenants WHERE id = \(id)
            """).first.map(tenant)
    }

    /// Changes only the settings given, in one statement on the row as it is (a field not
    /// given keeps its stored value, never a cached one): `quietHours` `.some(nil)` clears them.
    public func updateSettings(tenantId: String, quietHours: QuietHours??, defaultTimezone: String?, allowedTopics: [String]?) throws {
        let change = quietHours != nil
        let window = quietHours ?? nil
        let start = window.map { "\($0.start)" }, end = window.map { "\($0.end)" }
        try pool.withConnection { db in
            try db.execute("""
                UPDATE tenants SET quiet_start = CASE WHEN \(change)::boolean THEN \(start)::text ELSE quiet_start END,
                                   quiet_end = CASE WHEN \(change)::boolean THEN \(end)::text ELSE quiet_end END,
                                   default_timezone = coalesce(\(defaultTimezone)::text, default_timezone),
                                   allowed_topics = coalesce(\(allowedTopics.map { JSONB($0) })::jsonb, allowed_topics)
                WHERE id = \(tenantId)
                """)
            try db.notify(Self.tenantChannel, payload: tenantId)
        }
    }

    public func putSubscriber(_ subscriber: SubscriberRecord) throws {
        try pool.withConnection { db in
            try db.execute("""
                WITH lifted AS (DELETE FROM erased_subscribers WHERE tenant_id = \(subscriber.tenantId) AND subscriber_hash = \(Digest.sha256Hex(subscriber.id)))
                INSERT INTO subscribers (tenant_id, id, timezone, properties) VALUES (\(subscriber.tenantId), \(subscriber.id), \(subscriber.timezone), \(JSONB(subscriber.properties)))
                ON CONFLICT (tenant_id, id) DO UPDATE SET timezone = EXCLUDED.timezone, properties = EXCLUDED.properties, updated_at = now()
                """)
        }
    }

    public func erasedSubscribers(tenantId: String, ids: [String]) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        var byHash: [String: String] = [:]
        for id in ids { byHash[Digest.sha256Hex(id)] = id }
        return try pool.withConnection { db in
            Set(try db.query("""
                SELECT subscriber_hash FROM erased_subscribers WHERE tenant_id = \(tenantId) AND subscriber_hash = ANY(\(Array(byHash.keys))::text[])
                """).compactMap { byHash[try $0.decode("subscriber_hash", as: String.self)] })
        }
    }

    public func subscriberProfile(tenantId: String, id: String) throws -> (subscriber: SubscriberRecord, devices: [DeviceRecord])? {
        try pool.withConnection { db in
            guard let row = try db.query("SELECT timezone, properties FROM subscribers WHERE tenant_id = \(tenantId) AND id = \(id)").first else { return nil }
            let subscriber = SubscriberRecord(tenantId: tenantId, id: id, timezone: try row.decode("timezone"),
                                              properties: try row.decode("properties", as: JSONB<[String: JSONValue]>.self).value)
            let devices = try db.query("""
                SELECT id, platform, token, topic, environment, active, "authorization" FROM devices
                WHERE tenant_id = \(tenantId) AND subscriber_id = \(id) ORDER BY created_at, id
                """).map {
                DeviceRecord(id: try $0.decode("id"), tenantId: tenantId, subscriberId: id, platform: try $0.decode("platform"), token: try $0.decode("token"),
                             topic: try $0.decode("topic"), environment: try $0.decode("environment"), active: try $0.decode("active"),
                             authorization: try $0.decode("authorization", as: String?.self))
            }
            return (subscriber, devices)
        }
    }

    public func setSubscriberTimezone(tenantId: String, id: String, timezone: String) throws {
        try pool.withConnection { db in
            try db.execute("""
                UPDATE subscribers SET timezone = \(timezone), updated_at = now()
                WHERE tenant_id = \(tenantId) AND id = \(id) AND timezone IS DISTINCT FROM \(timezone)
                """)
        }
    }

    public func subscriberExists(tenantId: String, id: String) throws -> Bool {
        try pool.withConnection { db in
            try !db.query("SELECT 1 FROM subscribers WHERE tenant_id = \(tenantId) AND id = \(id)").isEmpty
        }
    }

    /// Registers a device token for a subscriber (re-activating it, whether it was logged out
    /// or refused by APNs, or moving it from another subscriber of the same tenant), in one
    /// transaction: the subscriber is created if it does not exist (never overwriting a
    /// timezone or properties written at the same moment), and past `maxActive` active
    /// devices the subscriber's least recently registered ones turn inactive ("device limit").
    /// A nil `authorization` keeps the one stored before. Returns the device id.
    @discardableResult
    public func putDevice(_ device: DeviceRecord, maxActive: Int, replacing: String?) throws -> UUID {
        try pool.withTransaction { db in
            try db.execute("""
                INSERT INTO subscribers (tenant_id, id, timezone, properties) VALUES (\(device.tenantId), \(device.subscriberId), NULL, '{}'::jsonb)
                ON CONFLICT (tenant_id, id) DO NOTHING
                """)
            // A new install of the app on this token (the old one deleted with its local
            // notifications): what the old install acknowledged for the windows of open runs no
            // longer holds, so their fallbacks go out.
            // Both deletes are planned each time, as the sync's query is: a generic plan made
            // while the tables were small read every plan of the tenant for each acknowledgment.
            // Each plan's run is read by primary key in a subquery, as in the sync's query: a
            // join with the run's status in the condition let the planner walk every open run.
            // The token's install is looked up first: the same install registering again (every
            // launch of the app) deletes nothing, and the join found that out in 0.47 ms, more
            // than the registration's other statements together (an all-at-once fleet of 10,000
            // subscribers: 15,000 registrations, 7 s of PostgreSQL's time).
            if let installId = device.installId,
               let row = try db.query("SELECT install_id FROM devices WHERE tenant_id = \(device.tenantId) AND token = \(device.token)").first,
               let previous = try row.decode("install_id", as: String?.self), previous != installId {
                try db.execute(("""
                    DELETE FROM acknowledgments a USING devices d, local_plans p
                    WHERE d.tenant_id = \(device.tenantId) AND d.token = \(device.token) AND d.install_id IS DISTINCT FROM \(installId)
                      AND d.install_id IS NOT NULL
                      AND a.tenant_id = d.tenant_id AND a.device = d.token
                      AND p.tenant_id = a.tenant_id AND p.local_id = a.local_id
                      AND (SELECT r.status IN ('running', 'waiting') FROM runs r WHERE r.id = p.run_id)
                    """ as PostgresQuery).plannedEachTime())
            }
            // The install this one replaced on the phone (its Keychain outlived it): the deleted
            // app's tokens are dead and its local notifications gone, so what it acknowledged for
            // open runs no longer holds, and nothing more goes to it.
            if let replacing, replacing != device.installId {
                try db.execute(("""
                    DELETE FROM acknowledgments a USING devices d, local_plans p
                    WHERE d.tenant_id = \(device.tenantId) AND d.install_id = \(replacing) AND d.token <> \(device.token)
                      AND a.tenant_id = d.tenant_id AND a.device = d.token
                      AND p.tenant_id = a.tenant_id AND p.local_id = a.local_id
                      AND (SELECT r.status IN ('running', 'waiting') FROM runs r WHERE r.id = p.run_id)
                    """ as PostgresQuery).plannedEachTime())
                try db.execute("""
                    UPDATE devices SET active = false, inactive_at = now(), inactive_reason = \(DeviceRecord.reinstalledReason), updated_at = now()
                    WHERE tenant_id = \(device.tenantId) AND install_id = \(replacing) AND token <> \(device.token) AND active
                    """)
            }
            // "authorization" is a reserved word in PostgreSQL, hence the quotes.
            let id: UUID = try db.query("""
                INSERT INTO devices (id, tenant_id, subscriber_id, platform, token, topic, environment, "authorization", install_id)
                VALUES (\(device.id), \(device.tenantId), \(device.subscriberId), \(device.platform), \(device.token), \(device.topic),
                        \(device.environment), \(device.authorization), \(device.installId))
                ON CONFLICT (tenant_id, token) DO UPDATE SET subscriber_id = EXCLUDED.subscriber_id, topic = EXCLUDED.topic,
                    environment = EXCLUDED.environment, "authorization" = coalesce(EXCLUDED."authorization", devices."authorization"),
                    install_id = coalesce(EXCLUDED.install_id, devices.install_id),
                    active = true, inactive_at = NULL, inactive_reason = NULL, updated_at = now()
                RETURNING id
                """)[0].decode("id")
            try db.execute("""
                UPDATE devices SET active = false, inactive_at = now(), inactive_reason = 'device limit', updated_at = now()
                WHERE id IN (SELECT id FROM devices WHERE tenant_id = \(device.tenantId) AND subscriber_id = \(device.subscriberId) AND active
                             ORDER BY updated_at DESC, id OFFSET \(maxActive))
                """)
            return id
        }
    }

    /// Stores a new version of a validated workflow and makes it current. Returns the version.
    @discardableResult
    public func putWorkflow(tenantId: String, definition: WorkflowDefinition, source: JSONValue) throws -> Int {
        try pool.withTransaction { db in
            try db.execute("SELECT pg_advisory_xact_lock(hashtext(\(tenantId + "/" + definition.key)))")
            let version = try db.query("SELECT coalesce(max(version), 0) + 1 AS v FROM workflows WHERE tenant_id = \(tenantId) AND key = \(definition.key)")[0]
                .decode("v", as: Int.self)
            try db.execute("""
                INSERT INTO workflows (tenant_id, key, version, trigger_event, definition)
                VALUES (\(tenantId), \(definition.key), \(version), \(definition.triggerEvent), \(JSONB(source)))
                """)
            try db.execute("""
                INSERT INTO workflow_heads (tenant_id, key, version, trigger_event, cancel_events)
                VALUES (\(tenantId), \(definition.key), \(version), \(definition.triggerEvent), \(Array(Set(definition.cancelOn.map(\.event))).sorted())::text[])
                ON CONFLICT (tenant_id, key) DO UPDATE SET version = EXCLUDED.version, trigger_event = EXCLUDED.trigger_event,
                    retired_at = NULL, updated_at = now(),
                    -- Grows only: runs of older versions may still cancel on names the new version dropped.
                    cancel_events = ARRAY(SELECT DISTINCT unnest(workflow_heads.cancel_events || EXCLUDED.cancel_events))
                """)
            // API processes forget the tenant's cancelling names (AcceptedCancels) at the commit.
            try db.notify(Self.tenantChannel, payload: tenantId)
            return version
        }
    }

    /// The current version of a workflow: its version number and the JSON as stored.
    public func workflow(tenantId: String, key: String) throws -> (version: Int, source: JSONValue)? {
        try pool.withConnection { db in
            try db.query("""
                SELECT w.version, w.definition FROM workflow_heads h JOIN workflows w ON w.tenant_id = h.tenant_id AND w.key = h.key AND w.version = h.version
                WHERE h.tenant_id = \(tenantId) AND h.key = \(key) AND h.retired_at IS NULL
                """).first.map { (try $0.decode("version"), try $0.decode("definition", as: JSONB<JSONValue>.self).value) }
        }
    }

    public func workflowVersions(tenantId: String, key: String, limit: Int) throws -> (current: Int?, versions: [WorkflowVersion]) {
        try pool.withConnection { db in
            let current: Int? = try db.query("""
                SELECT version FROM workflow_heads WHERE tenant_id = \(tenantId) AND key = \(key) AND retired_at IS NULL
                """).first?.decode("version")
            let versions = try db.query("""
                SELECT version, created_at, definition FROM workflows WHERE tenant_id = \(tenantId) AND key = \(key) ORDER BY version DESC LIMIT \(limit)
                """).map { WorkflowVersion(version: try $0.decode("version"), createdAt: try $0.decode("created_at"),
                                           source: try $0.decode("definition", as: JSONB<JSONValue>.self).value) }
            return (current, versions)
        }
    }

    public func workflows(tenantId: String) throws -> [WorkflowListing] {
        try pool.withConnection { db in
            try db.query("""
                SELECT key, version, updated_at FROM workflow_heads WHERE tenant_id = \(tenantId) AND retired_at IS NULL ORDER BY key
                """).map { WorkflowListing(key: try $0.decode("key"), version: try $0.decode("version"), updatedAt: try $0.decode("updated_at")) }
        }
    }

    public func retireWorkflow(tenantId: String, key: String, at: Date) throws -> Bool {
        try pool.withConnection { db in
            !(try db.query("""
                UPDATE workflow_heads SET retired_at = \(at), updated_at = \(at) WHERE tenant_id = \(tenantId) AND key = \(key) AND retired_at IS NULL
                RETURNING key
                """)).isEmpty
        }
    }
}
