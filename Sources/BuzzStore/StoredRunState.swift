import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

/// How a run's state is stored: the engine's stored form (``RunStateForm``, the store's
/// setting; either form is read) without the workflow snapshot (definitions are immutable per
/// key and version and kept in `workflows`), so a state is small to write and fast to read;
/// the definition comes from a process-wide cache.
enum StoredRunState {
    static func encode(_ state: RunState, form: RunStateForm) throws -> String {
        var writer = JSONWriter(capacity: form == .compact ? 1024 : 2048)
        state.write(to: &writer, includingWorkflow: false, form: form)
        return writer.string
    }

    static func decode(_ text: String, workflow: WorkflowDefinition) throws -> RunState {
        do {
            return try RunState(json: try JSONParser.parse(text), workflow: workflow)
        } catch {
            throw PostgresError(.decoding, "a stored run state does not decode: \(error)")
        }
    }

    /// A run row (`id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, state`).
    static func record(_ row: PostgresRow, db: PostgresConnection, definitions: DefinitionCache) throws -> RunRecord {
        let tenantId: String = try row.decode("tenant_id")
        let key: String = try row.decode("workflow_key")
        let version: Int = try row.decode("workflow_version")
        let workflow = try definitions.definition(tenantId: tenantId, key: key, version: version) {
            guard let source = try db.query("SELECT definition FROM workflows WHERE tenant_id = \(tenantId) AND key = \(key) AND version = \(version)")
                .first?.decode("definition", as: JSONB<JSONValue>.self).value else {
                throw PostgresError(.decoding, "workflow \(key) version \(version) of tenant \(tenantId) is missing")
            }
            return try WorkflowDefinition.parse(source)
        }
        return RunRecord(id: try row.decode("id"), tenantId: tenantId, workflowKey: key, workflowVersion: version,
                         subscriberId: try row.decode("subscriber_id"), dryRun: try row.decode("dry_run"),
                         state: try decode(try row.decode("state"), workflow: workflow), bulk: try row.decode("bulk"))
    }
}
