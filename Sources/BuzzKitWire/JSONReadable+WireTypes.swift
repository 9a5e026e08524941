import Foundation

// The fast readers and writers of the wire types a stored run state holds; each reads and
// writes exactly the form its `Codable` conformance does (tests compare the two).

extension BuzzEvent: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(id: try fields.optionalString("id"), event: try fields.string("event"), subscriberId: try fields.string("subscriberId"),
                  properties: try fields.optionalObject("properties") ?? [:], timestamp: try fields.instant("timestamp"))
    }
}

extension FireAt: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(year: try fields.int("year"), month: try fields.int("month"), day: try fields.int("day"),
                  hour: try fields.int("hour"), minute: try fields.int("minute"), second: try fields.int("second"))
    }
}

extension LocalPlan: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(id: try fields.string("id"), messageId: try fields.string("messageId"), fireAt: try fields.read("fireAt"),
                  title: try fields.string("title"), body: try fields.string("body"), deepLink: try fields.optionalString("deepLink"),
                  data: try fields.optionalObject("data") ?? [:], cancelOn: fields.value("cancelOn") == nil ? [] : try fields.strings("cancelOn"),
                  expiresAt: try fields.optionalInstant("expiresAt"), presentation: try NotificationPresentation(planFields: fields),
                  actions: fields.value("actions") == nil ? [] : try fields.readArray("actions"))
    }
}

extension RunSummary.Cancellation: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(by: try fields.raw("by"), event: try fields.optionalString("event"), at: try fields.instant("at"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("by", by.rawValue)
        writer.member("event", event)
        writer.member("at", instant: at)
        writer.endObject()
    }
}

extension RunSummary.LocalWindow.Fallback: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(sent: try fields.bool("sent"), idempotencyKey: try fields.string("idempotencyKey"), reason: try fields.string("reason"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("sent", sent)
        writer.member("idempotencyKey", idempotencyKey)
        writer.member("reason", reason)
        writer.endObject()
    }
}
