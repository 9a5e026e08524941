import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

/// The PostgreSQL ``Store``: one transaction per unit of work on a pooled connection.
public final class PostgresStore: Store, @unchecked Sendable {
    public let pool: PostgresPool
    /// The form run states are written in (either is read).
    public let runStateForm: RunStateForm
    /// Parsed workflow versions (versions never change, so they are cached for good).
    let definitions = DefinitionCache()

    public init(pool: PostgresPool, runStateForm: RunStateForm = .compact) {
        self.pool = pool
        self.runStateForm = runStateForm
    }

    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try pool.withTransaction { db in
            try body(PostgresStoreTransaction(db: db, definitions: definitions, stateForm: runStateForm))
        }
    }
}

/// Parsed workflow definitions by tenant, key and version.
final class DefinitionCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: WorkflowDefinition] = [:]

    func definition(tenantId: String, key: String, version: Int, parse: () throws -> WorkflowDefinition) rethrows -> WorkflowDefinition {
        let cacheKey = "\(tenantId)\u{0}\(key)\u{0}\(version)"
        lock.lock()
        if let cached = entries[cacheKey] { lock.unlock(); return cached }
        lock.unlock()
        let parsed = try parse()
        lock.lock()
        if entries.count > 10_000 { entries.removeAll() }
        entries[cacheKey] = parsed
        lock.unlock()
        return parsed
    }
}

/// ``StoreTransaction`` on one PostgreSQL connection inside `BEGIN … COMMIT`.
struct PostgresStoreTransaction: StoreTransaction {
    let db: PostgresConnection
    let definitions: DefinitionCache
    /// The form this transaction writes run states in.
    let stateForm: RunStateForm

    func tenant(_ id: String) throws -> TenantRecord? { try PostgresDirectory.tenant(id, on: db) }

    func subscriber(tenantId: String, id: String) throws -> SubscriberRecord? {
        try subscribers(tenantId: tenantId, ids: [id]).first
    }

    func subscribers(tenantId: String, ids: [String]) throws -> [SubscriberRecord] {
        guard !ids.isEmpty else { return [] }
        return try db.query("SELECT id, timezone, properties::text AS properties FROM subscribers WHERE tenant_id = \(tenantId) AND id = ANY(\(ids)::text[])")
            .map { row in
                let text: String = try row.decode("properties")
                guard case .object(let properties) = try JSONParser.parse(text) else {
                    throw PostgresError(.decoding, "subscriber properties are not an object")
                }
                return SubscriberRecord(tenantId: tenantId, id: try row.decode("id"), timezone: try row.decode("timezone"), properties: properties)
            }
    }

    func activeDevices(tenantId: String, subscriberId: String) throws -> [DeviceRecord] {
        try db.query("""
            SELECT id, platform, token, topic, environment, "authorization" FROM devices
            WHERE tenant_id = \(tenantId) AND subscriber_id = \(subscriberId) AND active ORDER BY created_at, id
            """).map { try device($0, tenantId: tenantId, subscriberId: subscriberId) }
    }

    func activeDevices(tenantId: String, subscriberIds: [String]) throws -> [String: [DeviceRecord]] {
        guard !subscriberIds.isEmpty else { return [:] }
        var out: [String: [DeviceRecord]] = [:]
        for row in try db.query("""
            SELECT id, subscriber_id, platform, token, topic, environment, "authorization" FROM devices
            WHERE tenant_id = \(tenantId) AND subscriber_id = ANY(\(Array(Set(subscriberIds)))::text[]) AND active ORDER BY created_at, id
            """) {
            let subscriberId: String = try row.decode("subscriber_id")
            out[subscriberId, default: []].append(try device(row, tenantId: tenantId, subscriberId: subscriberId))
        }
        return out
    }

    func deactivateDevice(_ id: UUID, reason: String, at: Date, deadSince: Date?) throws {
        // updated_at moves with every registration of the token.
        try db.execute("""
            UPDATE devices SET active = false, inactive_at = \(at), inactive_reason = \(reason), updated_at = now()
            WHERE id = \(id) AND active AND (\(deadSince)::timestamptz IS NULL OR updated_at <= \(deadSince))
            """)
    }

    func workflows(tenantId: String, triggeredBy event: String) throws -> [WorkflowRecord] {
        try db.query("""
            SELECT key, version FROM workflow_heads
            WHERE tenant_id = \(tenantId) AND trigger_event = \(event) AND retired_at IS NULL ORDER BY key
            """).map { row in
            let key: String = try row.decode("key")
            let version: Int = try row.decode("version")
            var source: JSONValue = .null
            let definition = try definitions.definition(tenantId: tenantId, key: key, version: version) {
                source = try loadSource(tenantId: tenantId, key: key, version: version)
                return try WorkflowDefinition.parse(source)
            }
            return WorkflowRecord(tenantId: tenantId, key: key, version: version, definition: definition, source: source)
        }
    }

    func cancelEventNames(tenantId: String) throws -> Set<String> {
        Set(try db.query("SELECT DISTINCT unnest(cancel_events) AS name FROM workflow_heads WHERE tenant_id = \(tenantId)")
            .map { try $0.decode("name", as: String.self) })
    }

    private func loadSource(tenantId: String, key: String, version: Int) throws -> JSONValue {
        try db.query("SELECT definition FROM workflows WHERE tenant_id = \(tenantId) AND key = \(key) AND version = \(version)")
            .first?.decode("definition", as: JSONB<JSONValue>.self).value ?? .null
    }

    func currentWorkflow(tenantId: String, key: String) throws -> WorkflowRecord? {
        try db.query("""
            SELECT w.key, w.version, w.definition FROM workflow_heads h
            JOIN workflows w ON w.tenant_id = h.tenant_id AND w.key = h.key AND w.version = h.version
            WHERE h.tenant_id = \(tenantId) AND h.key = \(key) AND h.retired_at IS NULL
            """).first.map { try workflow($0, tenantId: tenantId) }
    }

    private func workflow(_ row: PostgresRow, tenantId: String) throws -> WorkflowRecord {
        let key: String = try row.decode("key")
        let version: Int = try row.decode("version")
        let source = try row.decode("definition", as: JSONB<JSONValue>.self).value
        let definition = try definitions.definition(tenantId: tenantId, key: key, version: version) {
            try WorkflowDefinition.parse(source)
        }
        return WorkflowRecord(tenantId: tenantId, key: key, version: version, definition: definition, source: source)
    }

    func device(_ row: PostgresRow, tenantId: String, subscriberId: String) throws -> DeviceRecord {
        DeviceRecord(id: try row.decode("id"), tenantId: tenantId, subscriberId: subscriberId, platform: try row.decode("platform"),
                     token: try row.decode("token"), topic: try row.decode("topic"), environment: try row.decode("environment"),
                     authorization: try row.decode("authorization", as: String?.self))
    }
}
