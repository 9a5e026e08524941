import Foundation

/// A button on a notification (DESIGN §4c `actions`): `{"id", "title", "event"?, "foreground"?,
/// "destructive"?, "snooze"?}`, as a `send` declares it and as `bk.local` and sync's
/// `categories` carry it. `foreground` and `destructive` are written only when true.
public struct NotificationAction: Sendable, Hashable, Codable {
    /// The action's id (`$push.action`'s `actionId`), unique among the send's actions.
    public var id: String
    /// The button's title.
    public var title: String
    /// An event the device tracks when the person chooses it (properties `{messageId,
    /// localId}`): a workflow's cancelling event makes the button a "Done".
    public var event: String?
    /// Whether choosing it opens the app (`UNNotificationActionOptions.foreground`).
    public var foreground: Bool
    /// Whether iOS shows it as destructive (`UNNotificationActionOptions.destructive`).
    public var destructive: Bool
    /// A duration such as `"10m"`: the device shows the same notification again that much later.
    public var snooze: String?

    /// The longest snooze: one day.
    public static let longestSnooze: Int64 = 86_400

    public init(id: String, title: String, event: String? = nil, foreground: Bool = false, destructive: Bool = false, snooze: String? = nil) {
        self.id = id
        self.title = title
        self.event = event
        self.foreground = foreground
        self.destructive = destructive
        self.snooze = snooze
    }

    /// The snooze in seconds (`nil` when there is none or it is not a positive duration of at
    /// most ``longestSnooze``).
    public var snoozeSeconds: Int64? {
        guard let snooze, !snooze.hasPrefix("-"), !snooze.hasPrefix("+"), let duration = SignedDuration(parsing: snooze),
              duration.seconds > 0, duration.seconds <= Self.longestSnooze else { return nil }
        return duration.seconds
    }

    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }
}

extension NotificationAction: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(id: try fields.string("id"), title: try fields.string("title"), event: try fields.optionalString("event"),
                  foreground: fields.value("foreground") == nil ? false : try fields.bool("foreground"),
                  destructive: fields.value("destructive") == nil ? false : try fields.bool("destructive"),
                  snooze: try fields.optionalString("snooze"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", id)
        writer.member("title", title)
        if let event { writer.member("event", event) }
        if foreground { writer.member("foreground", true) }
        if destructive { writer.member("destructive", true) }
        if let snooze { writer.member("snooze", snooze) }
        writer.endObject()
    }
}
