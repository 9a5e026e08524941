import Foundation

// Fast readers of the push payloads and APNs headers carried in pipeline messages (the
// payloads' writers sit beside their types); each reads the `Codable` form.

extension SilentPlanPayload: JSONReadable {
    public init(json: JSONValue, path: String) throws {
        self.init(local: try JSONFields(json, path: path).read("bk.local"))
    }
}

extension CancelPayload: JSONReadable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(id: try JSONFields(.object(try fields.object("bk.cancel")), path: path + ".bk.cancel").string("id"))
    }
}

extension AlertPayload: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        let aps = try JSONFields(.object(try fields.object("aps")), path: path + ".aps")
        let alert = try JSONFields(.object(try aps.object("alert")), path: path + ".aps.alert")
        let bk = try JSONFields(.object(try fields.object("bk")), path: path + ".bk")
        let level = try aps.optionalString("interruption-level").map { text -> NotificationPresentation.InterruptionLevel in
            guard let level = NotificationPresentation.InterruptionLevel(apnsValue: text) else {
                throw JSONFields.Failure(path: path + ".aps.interruption-level", reason: "expected passive, active, time-sensitive or critical, got \(text)")
            }
            return level
        }
        let presentation = NotificationPresentation(interruptionLevel: level ?? .active, sound: try aps.optionalString("sound"),
                                                    threadId: try aps.optionalString("thread-id"), badge: try aps.optionalInt("badge"),
                                                    category: try aps.optionalString("category"))
        self.init(title: try alert.string("title"), body: try alert.string("body"), presentation: presentation,
                  messageId: try bk.string("messageId"), localId: try bk.optionalString("localId"), deepLink: try bk.optionalString("deepLink"),
                  data: try bk.optionalObject("data") ?? [:])
    }
}

extension APNsHeaders: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(pushType: try fields.string("pushType"), priority: try fields.int("priority"),
                  expiration: try fields.optionalInt("expiration").map(Int64.init), collapseId: try fields.optionalString("collapseId"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("pushType", pushType)
        writer.member("priority", priority)
        if let expiration { writer.member("expiration", expiration) }
        if let collapseId { writer.member("collapseId", collapseId) }
        writer.endObject()
    }
}
