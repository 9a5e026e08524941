import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import HTTPServer

/// Workflows, triggers and runs.
enum WorkflowRoutes {
    static func register(_ router: inout Router, _ api: APIContext) {
        router.add("PUT", "/v1/workflows/{key}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let key = try request.parameter("key")
            var source = try JSONBody(request).value
            if case .object(var members) = source {
                if members["key"] == nil { members["key"] = .string(key) }
                source = .object(members)
            }
            if case .string(let bodyKey)? = source["key"], bodyKey != key {
                throw HTTPError.badRequest("the body's key \"\(bodyKey)\" differs from the path's \"\(key)\"", code: "key_mismatch", field: "key")
            }
            let definition = try WorkflowDefinition.parse(source)  // an EngineError answers 422 (EngineError+HTTP)
            let tenantId = principal.tenant.id, stored = source
            let version = try await api.blocking { try api.directory.putWorkflow(tenantId: tenantId, definition: definition, source: stored) }
            return .json(WorkflowBody(key: key, version: version, definition: stored))
        }

        router.add("GET", "/v1/workflows/{key}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let key = try request.parameter("key"), tenantId = principal.tenant.id
            guard let found = try await api.blocking({ try api.directory.workflow(tenantId: tenantId, key: key) }) else {
                throw HTTPError.notFound("workflow \"\(key)\"")
            }
            return .json(WorkflowBody(key: key, version: found.version, definition: found.source))
        }

        router.add("POST", "/v1/workflows/{key}/trigger") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let key = try request.parameter("key"), tenantId = principal.tenant.id
            let fields = try JSONBody(request).object(allowed: ["subscriberId", "properties", "dryRun"])
            let subscriberId = try fields.string("subscriberId", required: false, maxLength: 200)
            let properties = try fields.object("properties") ?? [:]
            let dryRun = try fields.bool("dryRun") ?? false
            guard let run = try await api.blocking({
                try api.commands.trigger(tenantId: tenantId, workflowKey: key, subscriberId: subscriberId, properties: properties, dryRun: dryRun)
            }) else {
                throw HTTPError.notFound("workflow \"\(key)\"")
            }
            return .json(["runId": run.id.uuidString.lowercased()], status: 201)
        }

        router.add("GET", "/v1/runs/{id}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let id = try runId(request), tenantId = principal.tenant.id
            guard let run = try await api.blocking({ try api.commands.summary(tenantId: tenantId, runId: id) }) else { throw HTTPError.notFound("run \(id.uuidString.lowercased())") }
            return .json(run.state.summary)
        }

        router.add("POST", "/v1/runs/{id}/cancel") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let id = try runId(request), tenantId = principal.tenant.id
            guard let run = try await api.blocking({ try api.commands.cancel(tenantId: tenantId, runId: id) }) else {
                throw HTTPError.notFound("run \(id.uuidString.lowercased())")
            }
            return .json(run.state.summary)
        }
    }

    static func runId(_ request: HTTPRequest) throws -> UUID {
        let text = try request.parameter("id")
        guard let id = UUID(uuidString: text) else { throw HTTPError.notFound("run \(text)") }
        return id
    }

    struct WorkflowBody: Encodable {
        var key: String
        var version: Int
        var definition: JSONValue
    }
}
