import Foundation

/// A set of buttons under one id (DESIGN §4c): `{"id": "bk.<hash>", "actions": [...]}`, as
/// sync's answer carries every category the subscriber's live plans use. The id is derived
/// from the actions (``PayloadBuilder`` in the engine), so equal sets share one category.
public struct NotificationCategory: Sendable, Hashable, Codable {
    /// The category id (`bk.` and 16 hex digits).
    public var id: String
    /// Its buttons, in order.
    public var actions: [NotificationAction]

    /// The prefix of BuzzKit's category ids; an app's own categories never start with it.
    public static let idPrefix = "bk."

    public init(id: String, actions: [NotificationAction]) {
        self.id = id
        self.actions = actions
    }

    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }
}

extension NotificationCategory: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(id: try fields.string("id"), actions: try fields.readArray("actions"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", id)
        writer.key(literal: "actions")
        writer.beginArray()
        for action in actions { action.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }
}
