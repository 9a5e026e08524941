import Foundation

/// The `bk.local` member of a silent plan push: everything a device needs to schedule a
/// local notification and cancel it itself.
///
/// Wire form: `{"id", "messageId", "fireAt", "title", "body", "deepLink"?, "data", "cancelOn", "expiresAt"?,
/// "interruptionLevel"?, "sound"?, "threadId"?, "badge"?, "category"?, "actions"?}`.
/// `deepLink` is omitted when there is none; `data` is always an object; the presentation's
/// members only when not at their defaults (``NotificationPresentation``), `actions` only
/// when there are some.
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
    /// Until when the notification is worth showing (the moment plus the send's
    /// `expiresAfter`); plans made before lifetimes existed have none.
    public var expiresAt: Date?
    /// Interruption level, sound, thread, badge and the category of ``actions``.
    public var presentation: NotificationPresentation
    /// The buttons (the category ``NotificationPresentation/category`` names).
    public var actions: [NotificationAction]

    /// A plan from its parts.
    public init(id: String, messageId: String, fireAt: FireAt, title: String, body: String,
                deepLink: String? = nil, data: [String: JSONValue] = [:], cancelOn: [String] = [], expiresAt: Date? = nil,
                presentation: NotificationPresentation = .standard, actions: [NotificationAction] = []) {
        self.id = id
        self.messageId = messageId
        self.fireAt = fireAt
        self.title = title
        self.body = body
        self.deepLink = deepLink
        self.data = data
        self.cancelOn = cancelOn
        self.expiresAt = expiresAt
        self.presentation = presentation
        self.actions = actions
    }

    /// The category a device registers for this plan's buttons (`nil` when it has none).
    public var notificationCategory: NotificationCategory? {
        guard let id = presentation.category, !actions.isEmpty else { return nil }
        return NotificationCategory(id: id, actions: actions)
    }

    /// The wire form (``init(json:path:)`` and ``write(to:)``: one mapping for Codable too).
    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }

    /// Writes the object in the contract's key order.
    public func write(to writer: inout JSONWriter) { write(to: &writer, includingId: true) }

    /// Writes the object, without `id` when `includingId` is false (for a stored form that
    /// derives it; never on the wire).
    public func write(to writer: inout JSONWriter, includingId: Bool) {
        writer.beginObject()
        if includingId { writer.member("id", id) }
        writer.member("messageId", messageId)
        writer.member("fireAt", fireAt)
        writer.member("title", title)
        writer.member("body", body)
        if let deepLink { writer.member("deepLink", deepLink) }
        writer.member("data", data)
        writer.key(literal: "cancelOn")
        writer.beginArray()
        for name in cancelOn { writer.string(name) }
        writer.endArray()
        if let expiresAt { writer.member("expiresAt", instant: expiresAt) }
        presentation.writePlanMembers(to: &writer)
        if !actions.isEmpty {
            writer.key(literal: "actions")
            writer.beginArray()
            for action in actions { action.write(to: &writer) }
            writer.endArray()
        }
        writer.endObject()
    }
}
