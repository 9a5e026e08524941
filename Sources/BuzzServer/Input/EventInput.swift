import BuzzKitWire
import Foundation

/// The one validation of an incoming event, shared by `POST /v1/events` and AMQP ingest.
public enum EventInput {
    static let allowed: Set<String> = ["id", "event", "subscriberId", "properties", "timestamp"]

    /// Validates one event object.
    public static func parse(_ value: JSONValue, path: String, now: Date) throws -> BuzzEvent {
        let fields = try InputFields(value, path: path, allowed: allowed)
        let name = try fields.requiredString("event", maxLength: 200)
        guard !name.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "#" }) else {
            throw InputError("\(fields.field("event")) may not contain spaces, * or #", code: "invalid_value", field: fields.field("event"))
        }
        if name.hasPrefix("$") && name != BuzzEvent.localScheduled && name != BuzzEvent.pushOpened {
            throw InputError("\(fields.field("event")): names starting with $ are reserved for the SDK ($local.scheduled, $push.opened)",
                                       code: "invalid_value", field: fields.field("event"))
        }
        let subscriberId = try fields.requiredString("subscriberId", maxLength: 200)
        let properties = try fields.object("properties") ?? [:]
        var timestamp = now
        if let text = try fields.string("timestamp", required: false, maxLength: 64) {
            guard let parsed = RFC3339.parse(text) else {
                throw InputError("\(fields.field("timestamp")) must be an RFC 3339 instant such as 2026-11-30T09:00:00Z", code: "invalid_value", field: fields.field("timestamp"))
            }
            timestamp = parsed
        }
        if name == BuzzEvent.localScheduled {
            for key in ["localId", "messageId"] {
                guard case .string(let text)? = properties[key], !text.isEmpty else {
                    throw InputError("$local.scheduled needs properties.\(key) (a string)", code: "missing_field", field: InputFields.join(fields.field("properties"), key))
                }
            }
        }
        if name == BuzzEvent.pushOpened, properties["messageId"]?.stringValue == nil {
            throw InputError("$push.opened needs properties.messageId (a string)", code: "missing_field", field: InputFields.join(fields.field("properties"), "messageId"))
        }
        return BuzzEvent(id: try fields.string("id", required: false, maxLength: 200), event: name, subscriberId: subscriberId,
                         properties: properties, timestamp: timestamp)
    }
}
