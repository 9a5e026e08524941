/// An ordinary alert push body, used for the fallback of a local window and for
/// `deliver: "push"` sends:
/// `{"aps": {"alert": {"title", "body"}, "sound"?, "interruption-level"?, "thread-id"?, "badge"?, "category"?},
///   "bk": {"messageId", "localId"?, "deepLink"?, "data"}}`.
///
/// `localId` is present for a fallback (it names the local window it replaces) and absent
/// for an ordinary push; `deepLink` is omitted when there is none. The `aps` members after
/// `alert` are the send's presentation (``NotificationPresentation``), the same a plan carries.
public struct AlertPayload: APNsPayload, Hashable {
    /// The alert title.
    public var title: String
    /// The alert body.
    public var body: String
    /// Interruption level, sound, thread, badge and category.
    public var presentation: NotificationPresentation
    /// The message id, tracked again with `$push.opened`.
    public var messageId: String
    /// The local window this alert replaces, for a fallback.
    public var localId: String?
    /// A link to open on tap.
    public var deepLink: String?
    /// Free-form data handed to the app on open.
    public var data: [String: JSONValue]

    /// An alert from its parts.
    public init(title: String, body: String, presentation: NotificationPresentation = .standard, messageId: String,
                localId: String? = nil, deepLink: String? = nil, data: [String: JSONValue] = [:]) {
        self.title = title
        self.body = body
        self.presentation = presentation
        self.messageId = messageId
        self.localId = localId
        self.deepLink = deepLink
        self.data = data
    }

    /// The APNs sound name (`nil`: silent).
    public var sound: String? { presentation.sound }

    /// The wire form (``init(json:path:)`` and ``write(to:)``: one mapping for Codable too).
    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }

    /// Writes the body in the contract's key order.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "aps")
        writer.beginObject()
        writer.key(literal: "alert")
        writer.beginObject()
        writer.member("title", title)
        writer.member("body", body)
        writer.endObject()
        presentation.writeAPSMembers(to: &writer)
        writer.endObject()
        writer.key(literal: "bk")
        writer.beginObject()
        writer.member("messageId", messageId)
        if let localId { writer.member("localId", localId) }
        if let deepLink { writer.member("deepLink", deepLink) }
        writer.member("data", data)
        writer.endObject()
        writer.endObject()
    }
}
