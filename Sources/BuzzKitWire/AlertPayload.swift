/// An ordinary alert push body, used for the fallback of a local window and for
/// `deliver: "push"` sends:
/// `{"aps": {"alert": {"title", "body"}, "sound": "default"}, "bk": {"messageId", "localId"?, "deepLink"?, "data"}}`.
///
/// `localId` is present for a fallback (it names the local window it replaces) and absent
/// for an ordinary push; `deepLink` is omitted when there is none.
public struct AlertPayload: APNsPayload, Hashable {
    /// The alert title.
    public var title: String
    /// The alert body.
    public var body: String
    /// The APNs sound name (`default`).
    public var sound: String
    /// The message id, tracked again with `$push.opened`.
    public var messageId: String
    /// The local window this alert replaces, for a fallback.
    public var localId: String?
    /// A link to open on tap.
    public var deepLink: String?
    /// Free-form data handed to the app on open.
    public var data: [String: JSONValue]

    /// An alert from its parts.
    public init(title: String, body: String, sound: String = "default", messageId: String,
                localId: String? = nil, deepLink: String? = nil, data: [String: JSONValue] = [:]) {
        self.title = title
        self.body = body
        self.sound = sound
        self.messageId = messageId
        self.localId = localId
        self.deepLink = deepLink
        self.data = data
    }

    private enum CodingKeys: String, CodingKey { case aps, bk }
    private enum APSKeys: String, CodingKey { case alert, sound }
    private enum AlertKeys: String, CodingKey { case title, body }
    private enum BKKeys: String, CodingKey { case messageId, localId, deepLink, data }

    /// Decodes the body.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let aps = try container.nestedContainer(keyedBy: APSKeys.self, forKey: .aps)
        let alert = try aps.nestedContainer(keyedBy: AlertKeys.self, forKey: .alert)
        title = try alert.decode(String.self, forKey: .title)
        body = try alert.decode(String.self, forKey: .body)
        sound = try aps.decodeIfPresent(String.self, forKey: .sound) ?? "default"
        let bk = try container.nestedContainer(keyedBy: BKKeys.self, forKey: .bk)
        messageId = try bk.decode(String.self, forKey: .messageId)
        localId = try bk.decodeIfPresent(String.self, forKey: .localId)
        deepLink = try bk.decodeIfPresent(String.self, forKey: .deepLink)
        data = try bk.decodeIfPresent([String: JSONValue].self, forKey: .data) ?? [:]
    }

    /// Encodes the body.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var aps = container.nestedContainer(keyedBy: APSKeys.self, forKey: .aps)
        var alert = aps.nestedContainer(keyedBy: AlertKeys.self, forKey: .alert)
        try alert.encode(title, forKey: .title)
        try alert.encode(body, forKey: .body)
        try aps.encode(sound, forKey: .sound)
        var bk = container.nestedContainer(keyedBy: BKKeys.self, forKey: .bk)
        try bk.encode(messageId, forKey: .messageId)
        try bk.encodeIfPresent(localId, forKey: .localId)
        try bk.encodeIfPresent(deepLink, forKey: .deepLink)
        try bk.encode(data, forKey: .data)
    }

    /// Writes the body in the contract's key order.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "aps")
        writer.beginObject()
        writer.key(literal: "alert")
        writer.beginObject()
        writer.key(literal: "title"); writer.string(title)
        writer.key(literal: "body"); writer.string(body)
        writer.endObject()
        writer.key(literal: "sound"); writer.string(sound)
        writer.endObject()
        writer.key(literal: "bk")
        writer.beginObject()
        writer.key(literal: "messageId"); writer.string(messageId)
        if let localId { writer.key(literal: "localId"); writer.string(localId) }
        if let deepLink { writer.key(literal: "deepLink"); writer.string(deepLink) }
        writer.key(literal: "data"); writer.write(data)
        writer.endObject()
        writer.endObject()
    }
}
