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

    /// An event from its parts.
    public init(id: String? = nil, event: String, subscriberId: String,
                properties: [String: JSONValue] = [:], timestamp: Date) {
        self.id = id
        self.event = event
        self.subscriberId = subscriberId
        self.properties = properties
        self.timestamp = timestamp
    }

    private enum CodingKeys: String, CodingKey {
        case id, event, subscriberId, properties, timestamp
    }

    /// Decodes the wire form; `timestamp` must be RFC 3339.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        event = try container.decode(String.self, forKey: .event)
        subscriberId = try container.decode(String.self, forKey: .subscriberId)
        properties = try container.decodeIfPresent([String: JSONValue].self, forKey: .properties) ?? [:]
        timestamp = try container.decodeInstant(forKey: .timestamp)
    }

    /// Encodes the wire form; `id` is omitted when `nil`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(event, forKey: .event)
        try container.encode(subscriberId, forKey: .subscriberId)
        try container.encode(properties, forKey: .properties)
        try container.encodeInstant(timestamp, forKey: .timestamp)
    }

    /// The property at a dotted path (`workout.id`), if present.
    public func property(at dottedPath: String) -> JSONValue? {
        properties.value(at: dottedPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }
}
