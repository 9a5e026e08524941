import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import HTTPServer

/// Subscribers and tenant settings (devices: ``DeviceRoutes``).
enum DirectoryRoutes {
    static func register(_ router: inout Router, _ api: APIContext) {
        router.add("PUT", "/v1/subscribers/{id}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let id = try subscriberId(request)
            let fields = try JSONBody(request).object(allowed: ["timezone", "properties"])
            let timezone = try fields.string("timezone", required: false, maxLength: 64)
            if let timezone, ZoneRules(identifier: timezone) == nil {
                throw HTTPError.badRequest("timezone \"\(timezone)\" is not an IANA zone such as Europe/Berlin", code: "unknown_timezone", field: "timezone")
            }
            let subscriber = SubscriberRecord(tenantId: principal.tenant.id, id: id, timezone: timezone, properties: try fields.object("properties") ?? [:])
            try await api.blocking { try api.directory.putSubscriber(subscriber) }
            return .json(SubscriberBody(id: id, timezone: timezone, properties: subscriber.properties))
        }

        router.add("GET", "/v1/subscribers/{id}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let id = try subscriberId(request), tenantId = principal.tenant.id
            guard let profile = try await api.blocking({ try api.directory.subscriberProfile(tenantId: tenantId, id: id) }) else {
                throw HTTPError.notFound("subscriber \"\(id)\"")
            }
            return .json(SubscriberProfileBody(profile.subscriber, devices: profile.devices))
        }

        router.add("DELETE", "/v1/subscribers/{id}") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let id = try subscriberId(request), tenantId = principal.tenant.id
            try await api.blocking { try api.commands.erase(tenantId: tenantId, subscriberId: id) }
            return HTTPResponse(status: 204)
        }

        router.add("GET", "/v1/settings") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let tenantId = principal.tenant.id
            guard let tenant = try await api.blocking({ try api.directory.tenant(tenantId) }) else { throw HTTPError.notFound("the tenant") }
            return .json(SettingsBody(tenant))
        }

        router.add("PUT", "/v1/settings") { request in
            let principal = try await api.principal(request)
            try principal.requireServer()
            let fields = try JSONBody(request).object(allowed: ["quietHours", "defaultTimezone", "allowedTopics"])
            let topics = try allowedTopics(fields)
            // Only the fields given change, on the stored row (not on the cached tenant).
            let zone = try fields.string("defaultTimezone", required: false, maxLength: 64)
            if let zone, ZoneRules(identifier: zone) == nil {
                throw HTTPError.badRequest("defaultTimezone \"\(zone)\" is not an IANA zone such as Europe/Berlin", code: "unknown_timezone", field: "defaultTimezone")
            }
            var quiet: QuietHours?? = nil
            if fields.has("quietHours") {
                if let members = try fields.object("quietHours") {
                    let window = try InputFields(.object(members), path: "quietHours", allowed: ["start", "end"])
                    let start = try window.requiredString("start", maxLength: 8), end = try window.requiredString("end", maxLength: 8)
                    do {
                        quiet = try QuietHours.parse("\(start)-\(end)")
                    } catch {
                        throw HTTPError.badRequest("quietHours: \((error as? EngineError)?.message ?? "\(error)")", code: "invalid_value", field: "quietHours")
                    }
                } else {
                    quiet = .some(nil)
                }
            }
            let tenantId = principal.tenant.id, window = quiet
            try await api.blocking { try api.directory.updateSettings(tenantId: tenantId, quietHours: window, defaultTimezone: zone, allowedTopics: topics) }
            api.authenticator.invalidate(tenantId: tenantId)
            guard let tenant = try await api.blocking({ try api.directory.tenant(tenantId) }) else { throw HTTPError.notFound("the tenant") }
            return .json(SettingsBody(tenant))
        }
    }

    /// `allowedTopics` of `PUT /v1/settings`: at most 50 bundle ids of 1–200 bytes (nil when
    /// not given; `[]` allows any topic).
    static func allowedTopics(_ fields: InputFields) throws -> [String]? {
        guard fields.has("allowedTopics") else { return nil }
        guard case .array(let items)? = fields.members["allowedTopics"], items.count <= 50 else {
            throw HTTPError.badRequest("allowedTopics must be an array of at most 50 bundle ids such as \"com.example.gym\"", code: "invalid_value", field: "allowedTopics")
        }
        return try items.enumerated().map { index, item in
            guard case .string(let topic) = item, !topic.isEmpty, topic.utf8.count <= 200, !topic.utf8.contains(0) else {
                throw HTTPError.badRequest("allowedTopics[\(index)] must be a bundle id of 1 to 200 bytes", code: "invalid_value", field: "allowedTopics[\(index)]")
            }
            return topic
        }
    }

    /// The `{id}` of a subscriber route: at most 200 UTF-8 bytes and no NUL (it is bound to SQL).
    static func subscriberId(_ request: HTTPRequest) throws -> String {
        let id = try request.parameter("id")
        guard id.utf8.count <= 200 else { throw HTTPError.badRequest("the subscriber id is longer than 200 bytes (UTF-8)", code: "invalid_value", field: "id") }
        guard !id.utf8.contains(0) else { throw HTTPError.badRequest("the subscriber id may not contain NUL", code: "invalid_value", field: "id") }
        return id
    }

    struct SubscriberBody: Encodable {
        var id: String
        var timezone: String?
        var properties: [String: JSONValue]
    }

    /// `GET /v1/subscribers/{id}`: the subscriber and its devices, each token shown only by its
    /// last 8 characters.
    struct SubscriberProfileBody: Encodable {
        struct Device: Encodable {
            var tokenSuffix: String
            var platform: String
            var environment: String
            var active: Bool
            var authorization: String?
        }
        var id: String
        var timezone: String?
        var properties: [String: JSONValue]
        var devices: [Device]

        init(_ subscriber: SubscriberRecord, devices: [DeviceRecord]) {
            id = subscriber.id
            timezone = subscriber.timezone
            properties = subscriber.properties
            self.devices = devices.map {
                Device(tokenSuffix: String($0.token.suffix(8)), platform: $0.platform, environment: $0.environment, active: $0.active,
                       authorization: $0.authorization)
            }
        }
    }

    struct SettingsBody: Encodable {
        struct Window: Encodable { var start: String; var end: String }
        var quietHours: Window?
        var defaultTimezone: String
        var allowedTopics: [String]

        init(_ tenant: TenantRecord) {
            quietHours = tenant.quietHours.map { Window(start: "\($0.start)", end: "\($0.end)") }
            defaultTimezone = tenant.defaultTimezone
            allowedTopics = tenant.allowedTopics
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(quietHours, forKey: .quietHours)  // null when none
            try container.encode(defaultTimezone, forKey: .defaultTimezone)
            try container.encode(allowedTopics, forKey: .allowedTopics)
        }

        enum CodingKeys: String, CodingKey { case quietHours, defaultTimezone, allowedTopics }
    }
}
