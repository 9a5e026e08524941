import Foundation

/// An event, as posted to `POST /v1/events` and published to the `buzzkit.events` exchange:
/// `{"id"?, "event", "subscriberId", "properties", "timestamp"}`.
///
/// Names starting with `$` are the SDK's own events (``BuzzEvent/localScheduled``,
/// ``BuzzEvent/pushOpened``).
public struct BuzzEvent: Sendable, Hashable, Codable {
    /// The client's optional id, deduplicated per tenant.
    public var id: String?
    /// The event name, for example `workout.completed`.
    public var event: String
    /// The subscriber the event is about.
    public var subscriberId: String
    /// Free-form properties. A missing `properties` member decodes as `{}`.
    public var properties: [String: JSONValue]
    /// When the event happened (RFC 3339 on the wire).
    public var timestamp: Date

    /// The acknowledgment a device sends after scheduling a plan; properties `{localId, messageId}`.
    public static let localScheduled = "$local.scheduled"
    /// An open of a local or remote notification; properties `{messageId}`.
    public static let pushOpened = "$push.opened"
    /// The SDK's release: the phone no longer holds a plan it acknowledged (properties
    /// `localId`, `messageId`, `device`: the phone's push token). docs/contract.md §4b "Released plans".
    public static let localReleased = "$local.released"
    /// The person chose a notification's button; properties `{messageId, localId?, actionId}`
    /// (DESIGN §4c).
    public static let pushAction = "$push.action"
    /// A snooze button scheduled the notification again; properties `{messageId, localId?,
    /// actionId, snoozeId, until}`.
    public static let localSnoozed = "$local.snoozed"

    /// An event from its parts.
    public init(id: String? = nil, event: String, subscriberId: String,
                properties: [String: JSONValue] = [:], timestamp: Date) {
        self.id = id
        self.event = event
        self.subscriberId = subscriberId
        self.properties = properties
        self.timestamp = timestamp
    }

    /// The wire form (``init(json:path:)`` and ``write(to:)``: one mapping for Codable too).
    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }

    /// The property at a dotted path (`workout.id`), if present.
    public func property(at dottedPath: String) -> JSONValue? {
        properties.value(at: dottedPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }
}
