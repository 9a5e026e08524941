/// The `bk.local` member of a silent plan push: everything a device needs to schedule a
/// local notification and cancel it itself.
///
/// Wire form: `{"id", "messageId", "fireAt", "title", "body", "deepLink"?, "data", "cancelOn"}`.
/// `deepLink` is omitted when there is none; `data` is always an object.
public struct LocalPlan: Sendable, Hashable, Codable {
    /// The local id, `<runId>/<stepName>`; the device uses it as the request id.
    public var id: String
    /// The message id (a UUID), tracked again with `$push.opened`.
    public var messageId: String
    /// The floating wall clock to fire at.
    public var fireAt: FireAt
    /// The notification title.
    public var title: String
    /// The notification body.
    public var body: String
    /// A link to open on tap.
    public var deepLink: String?
    /// Free-form data handed to the app on open.
    public var data: [String: JSONValue]
    /// Event names that remove the notification on the device.
    public var cancelOn: [String]

    /// A plan from its parts.
    public init(id: String, messageId: String, fireAt: FireAt, title: String, body: String,
                deepLink: String? = nil, data: [String: JSONValue] = [:], cancelOn: [String] = []) {
        self.id = id
        self.messageId = messageId
        self.fireAt = fireAt
        self.title = title
        self.body = body
        self.deepLink = deepLink
        self.data = data
        self.cancelOn = cancelOn
    }

    private enum CodingKeys: String, CodingKey {
        case id, messageId, fireAt, title, body, deepLink, data, cancelOn
    }

    /// Decodes the wire form; missing `data` and `cancelOn` decode as empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        messageId = try container.decode(String.self, forKey: .messageId)
        fireAt = try container.decode(FireAt.self, forKey: .fireAt)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
        deepLink = try container.decodeIfPresent(String.self, forKey: .deepLink)
        data = try container.decodeIfPresent([String: JSONValue].self, forKey: .data) ?? [:]
        cancelOn = try container.decodeIfPresent([String].self, forKey: .cancelOn) ?? []
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(messageId, forKey: .messageId)
        try container.encode(fireAt, forKey: .fireAt)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encodeIfPresent(deepLink, forKey: .deepLink)
        try container.encode(data, forKey: .data)
        try container.encode(cancelOn, forKey: .cancelOn)
    }

    /// Writes the object in the contract's key order.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "id"); writer.string(id)
        writer.key(literal: "messageId"); writer.string(messageId)
        writer.key(literal: "fireAt"); fireAt.write(to: &writer)
        writer.key(literal: "title"); writer.string(title)
        writer.key(literal: "body"); writer.string(body)
        if let deepLink { writer.key(literal: "deepLink"); writer.string(deepLink) }
        writer.key(literal: "data"); writer.write(data)
        writer.key(literal: "cancelOn")
        writer.beginArray()
        for name in cancelOn { writer.string(name) }
        writer.endArray()
        writer.endObject()
    }
}
