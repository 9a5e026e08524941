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

        router.add("GET", "/v1/workflows") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let tenantId = principal.tenant.id
            let listed = try await api.blocking { try api.directory.workflows(tenantId: tenantId) }
            return .json(WorkflowList(workflows: listed.map { .init(key: $0.key, version: $0.version, updatedAt: RFC3339.format($0.updatedAt)) }))
        }

        router.add("GET", "/v1/workflows/{key}/versions") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let key = try request.parameter("key"), tenantId = principal.tenant.id
            let (current, versions) = try await api.blocking { try api.directory.workflowVersions(tenantId: tenantId, key: key, limit: 100) }
            guard !versions.isEmpty else { throw HTTPError.notFound("workflow \"\(key)\"") }
            return .json(VersionList(key: key, current: current, versions: versions.map {
                .init(version: $0.version, createdAt: RFC3339.format($0.createdAt), definition: $0.source)
            }))
        }

        router.add("DELETE", "/v1/workflows/{key}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let key = try request.parameter("key"), tenantId = principal.tenant.id, now = api.clock.now
            guard try await api.blocking({ try api.directory.retireWorkflow(tenantId: tenantId, key: key, at: now) }) else {
                throw HTTPError.notFound("workflow \"\(key)\"")
            }
            return HTTPResponse(status: 204)
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

        summaryRoute("GET", "/v1/runs/{id}", &router, api) { try $0.summary(tenantId: $1, runId: $2) }

        router.add("GET", "/v1/runs") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let query = try runQuery(request), tenantId = principal.tenant.id
            // One more than the page: whether another page follows.
            var oneMore = query
            oneMore.limit += 1
            let asked = oneMore
            let (page, more) = try await api.blocking { () -> ([RunQuery.Found], Bool) in
                let found = try api.commands.runs(tenantId: tenantId, asked)
                return (Array(found.prefix(query.limit)), found.count > query.limit)
            }
            let summaries = try await api.blocking { try api.commands.summaries(tenantId: tenantId, of: page.map(\.run)) }
            return .json(RunList(runs: summaries, nextCursor: more ? page.last?.cursor.text : nil))
        }

        summaryRoute("POST", "/v1/runs/{id}/cancel", &router, api) { try $0.cancel(tenantId: $1, runId: $2) }
    }

    /// A route on one run: the run's summary after `act` (reading or cancelling it), or 404.
    private static func summaryRoute(_ method: String, _ path: String, _ router: inout Router, _ api: APIContext,
                                     _ act: @escaping @Sendable (RunCommands, String, UUID) throws -> RunRecord?) {
        router.add(method, path) { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let id = try runId(request), tenantId = principal.tenant.id
            guard let summary = try await api.blocking({
                try act(api.commands, tenantId, id).map { try api.commands.summaries(tenantId: tenantId, of: [$0])[0] }
            }) else { throw HTTPError.notFound("run \(id.uuidString.lowercased())") }
            return .json(summary)
        }
    }

    /// `GET /v1/runs?subscriberId=&workflow=&status=&limit=&cursor=`.
    static func runQuery(_ request: HTTPRequest) throws -> RunQuery {
        let allowed: Set<String> = ["subscriberId", "workflow", "status", "limit", "cursor"]
        if let unknown = request.query.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw HTTPError.badRequest("unknown parameter \(unknown); filter by subscriberId, workflow and status, page with limit and cursor",
                                       code: "unknown_field", field: unknown)
        }
        func text(_ name: String) throws -> String? {
            guard let value = request.query[name], !value.isEmpty else { return nil }
            guard value.utf8.count <= 200, !value.utf8.contains(0) else {
                throw HTTPError.badRequest("\(name) holds at most 200 bytes and no NUL", code: "invalid_value", field: name)
            }
            return value
        }
        var query = RunQuery(subscriberId: try text("subscriberId"), workflowKey: try text("workflow"), status: try text("status"))
        if let status = query.status, RunStatus(rawValue: status) == nil {
            throw HTTPError.badRequest("status must be one of running, waiting, completed, cancelled, failed; got \"\(status)\"",
                                       code: "invalid_value", field: "status")
        }
        if let limit = try text("limit") {
            guard let n = Int(limit), (1...100).contains(n) else {
                throw HTTPError.badRequest("limit must be a whole number from 1 to 100, got \"\(limit)\"", code: "invalid_value", field: "limit")
            }
            query.limit = n
        }
        if let cursor = try text("cursor") {
            guard let parsed = RunQuery.Cursor(text: cursor) else {
                throw HTTPError.badRequest("cursor is not one this API handed out (use nextCursor as given)", code: "invalid_value", field: "cursor")
            }
            query.after = parsed
        }
        return query
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

    /// `GET /v1/runs`.
    struct RunList: Encodable {
        var runs: [RunSummary]
        var nextCursor: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(runs, forKey: .runs)
            try container.encode(nextCursor, forKey: .nextCursor)  // null on the last page, not left out
        }

        enum CodingKeys: String, CodingKey { case runs, nextCursor }
    }

    /// `GET /v1/workflows/{key}/versions`: newest first; `current` is null once retired.
    struct VersionList: Encodable {
        struct Version: Encodable {
            var version: Int
            var createdAt: String
            var definition: JSONValue
        }
        var key: String
        var current: Int?
        var versions: [Version]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(key, forKey: .key)
            try container.encode(current, forKey: .current)  // null once retired, not left out
            try container.encode(versions, forKey: .versions)
        }

        enum CodingKeys: String, CodingKey { case key, current, versions }
    }

    /// `GET /v1/workflows`.
    struct WorkflowList: Encodable {
        struct Item: Encodable {
            var key: String
            var version: Int
            var updatedAt: String
        }
        var workflows: [Item]
    }
}
