import BuzzKitWire

/// The `bk` object that BuzzKit notifications carry in their user info, the same for a local
/// notification scheduled from a plan and for a remote alert (fallback or ordinary push):
/// `{"messageId", "localId"?, "deepLink"?, "data"}`.
public struct NotificationMessage: Sendable, Hashable {
    /// The message id, tracked with `$push.opened`.
    public var messageId: String
    /// The local window, for a planned notification or its fallback.
    public var localId: String?
    /// The link to open on tap.
    public var deepLink: String?
    /// Free-form data for the app.
    public var data: [String: JSONValue]

    /// A message from its parts.
    public init(messageId: String, localId: String? = nil, deepLink: String? = nil, data: [String: JSONValue] = [:]) {
        self.messageId = messageId
        self.localId = localId
        self.deepLink = deepLink
        self.data = data
    }

    /// The message of a plan's local notification.
    public init(plan: LocalPlan) {
        self.init(messageId: plan.messageId, localId: plan.id,
                  deepLink: plan.deepLink, data: plan.data)
    }

    /// Reads the `bk` object of a notification's user info (a local request's user info or a
    /// remote payload); `nil` when there is none or it has no `messageId`.
    public init?(userInfo: [String: JSONValue]) {
        guard case .object(let bk)? = userInfo["bk"], let messageId = bk["messageId"]?.stringValue else { return nil }
        self.init(messageId: messageId, localId: bk["localId"]?.stringValue,
                  deepLink: bk["deepLink"]?.stringValue, data: bk["data"]?.objectValue ?? [:])
    }

    /// The user info that carries this message: `{"bk": {…}}`.
    public var userInfo: [String: JSONValue] {
        var bk: [String: JSONValue] = ["messageId": .string(messageId), "data": .object(data)]
        if let localId { bk["localId"] = .string(localId) }
        if let deepLink { bk["deepLink"] = .string(deepLink) }
        return ["bk": .object(bk)]
    }
}
