import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import HTTPServer

/// A subscriber's devices and what they should hold (contract §4 and §4b). Every route takes
/// the secret key (servers, any subscriber) or the publishable key with a subscriber token
/// made for the subscriber in the path (devices, their own subscriber only).
enum DeviceRoutes {
    /// The notification permissions the SDK reports.
    static let authorizations: Set<String> = ["authorized", "provisional", "denied", "notDetermined"]
    /// `inactive_reason` of a device its app logged out.
    static let logoutReason = "logged out"

    static func register(_ router: inout Router, _ api: APIContext) {
        // Registers (or re-registers, which re-activates) a push token for the subscriber.
        router.add("PUT", "/v1/subscribers/{id}/devices") { request in
            let principal = try await api.principal(request)
            let id = try DirectoryRoutes.subscriberId(request)
            try principal.authorize(subscriberId: id, now: api.clock.now)
            try await api.refuseErased(principal, subscriberIds: [id])
            let fields = try JSONBody(request).object(allowed: ["platform", "token", "topic", "environment", "authorization", "timezone", "installId", "replacesInstallId"])
            let platform = try fields.requiredString("platform", maxLength: 16)
            guard platform == "ios" else {
                throw HTTPError.badRequest("platform must be \"ios\", got \"\(platform)\"", code: "invalid_value", field: "platform")
            }
            let token = try fields.requiredString("token", maxLength: 200)
            guard isDeviceToken(token) else {
                throw HTTPError.badRequest("token must be the APNs device token: exactly 64 hex digits", code: "invalid_value", field: "token")
            }
            let topic = try fields.requiredString("topic", maxLength: 200)
            let allowed = principal.tenant.allowedTopics
            guard allowed.isEmpty || allowed.contains(topic) else {
                throw HTTPError.badRequest("topic \"\(topic)\" is not one of this tenant's apps (\(allowed.joined(separator: ", "))); set them with PUT /v1/settings allowedTopics",
                                           code: "invalid_value", field: "topic")
            }
            let environment = try fields.string("environment", required: false, maxLength: 16) ?? "production"
            guard environment == "production" || environment == "sandbox" else {
                throw HTTPError.badRequest("environment must be \"production\" or \"sandbox\"", code: "invalid_value", field: "environment")
            }
            let authorization = try authorization(fields)
            // The phone's zone: the subscriber's follows it ("07:00 in the subscriber's timezone").
            let timezone = try fields.string("timezone", required: false, maxLength: 64)
            if let timezone, ZoneRules(identifier: timezone) == nil {
                throw HTTPError.badRequest("timezone \"\(timezone)\" is not an IANA zone such as Europe/Berlin", code: "unknown_timezone", field: "timezone")
            }
            // Which install of the app this is: a new one on the same token retires what the old
            // one acknowledged for windows still ahead.
            let installId = try installIdField(fields, "installId")
            // The install this one replaced on the phone (the app deleted and installed again,
            // with a new token): its devices retire, and what they acknowledged for open runs.
            let replacing = try installIdField(fields, "replacesInstallId")
            let tenantId = principal.tenant.id
            let device = DeviceRecord(tenantId: tenantId, subscriberId: id, platform: platform, token: token.lowercased(), topic: topic,
                                      environment: environment, authorization: authorization, installId: installId)
            let maxActive = api.maxDevicesPerSubscriber
            let deviceId = try await api.blocking {
                let id = try api.directory.putDevice(device, maxActive: maxActive, replacing: replacing)
                if let timezone { try api.directory.setSubscriberTimezone(tenantId: tenantId, id: device.subscriberId, timezone: timezone) }
                return id
            }
            var body = ["id": deviceId.uuidString.lowercased(), "subscriberId": id, "platform": platform, "environment": environment]
            body["authorization"] = authorization
            return .json(body)
        }

        // Logout: the token receives nothing more for this subscriber. Idempotent.
        router.add("DELETE", "/v1/subscribers/{id}/devices/{token}") { request in
            let principal = try await api.principal(request)
            let id = try DirectoryRoutes.subscriberId(request)
            let now = api.clock.now
            try principal.authorize(subscriberId: id, now: now)
            let token = try request.parameter("token").lowercased()
            let notFound = HTTPError.notFound("device token …\(token.suffix(8)) of subscriber \(id)")
            // A text that cannot be a registered token is not looked up (nor bound to SQL).
            guard isDeviceToken(token) else { throw notFound }
            let tenantId = principal.tenant.id
            let found = try await api.blocking {
                try api.directory.deactivateDevice(tenantId: tenantId, subscriberId: id, token: token, reason: logoutReason, at: now)
            }
            guard found != .notFound else { throw notFound }
            return HTTPResponse(status: 204)
        }

        // Device sync: every plan of the subscriber's live runs whose moment is still ahead.
        router.add("GET", "/v1/subscribers/{id}/plans") { request in
            let principal = try await api.principal(request)
            let id = try DirectoryRoutes.subscriberId(request)
            let now = api.clock.now
            try principal.authorize(subscriberId: id, now: now)
            try await api.refuseErased(principal, subscriberIds: [id])
            let tenantId = principal.tenant.id
            let plans = try await api.blocking { try api.directory.pendingPlans(tenantId: tenantId, subscriberId: id, now: now) }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                                body: syncBody(plans, asOf: now))
        }
    }

    /// `{"plans": [bk.local, …], "categories": [{id, actions}, …], "asOf": "<RFC 3339>"}`, each
    /// plan written as the push wrote it, and each category (buttons) the plans use once.
    static func syncBody(_ plans: [LocalPlan], asOf: Date) -> Data {
        var writer = JSONWriter(capacity: 64 + plans.count * 384)
        writer.beginObject()
        writer.key(literal: "plans")
        writer.beginArray()
        for plan in plans { plan.write(to: &writer) }
        writer.endArray()
        var seen: Set<String> = []
        writer.key(literal: "categories")
        writer.beginArray()
        for category in plans.compactMap(\.notificationCategory) where seen.insert(category.id).inserted { category.write(to: &writer) }
        writer.endArray()
        writer.member("asOf", instant: asOf)
        writer.endObject()
        return Data(writer.bytes)
    }

    /// The optional `authorization` member: one of ``authorizations`` (null counts as absent).
    static func authorization(_ fields: InputFields) throws -> String? {
        guard let value = fields.members["authorization"], !value.isNull else { return nil }
        guard case .string(let text) = value, authorizations.contains(text) else {
            throw HTTPError.badRequest("authorization must be one of \(authorizations.sorted().map { "\"\($0)\"" }.joined(separator: ", "))",
                                       code: "invalid_value", field: "authorization")
        }
        return text
    }

    /// An optional install id member: letters, digits and dashes (the SDK sends a UUID), at
    /// most 64 characters.
    static func installIdField(_ fields: InputFields, _ name: String) throws -> String? {
        let value = try fields.string(name, required: false, maxLength: 64)
        if let value, value.isEmpty || !value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
            throw HTTPError.badRequest("\(name) is letters, digits and dashes (a UUID)", code: "invalid_value", field: name)
        }
        return value
    }

    /// A device token as registration accepts it: an APNs token, exactly 64 ASCII hex digits.
    static func isDeviceToken(_ token: String) -> Bool {
        let bytes = token.utf8
        return bytes.count == 64
            && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }
}
