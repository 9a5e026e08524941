import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// The one validation of an incoming event, shared by `POST /v1/events` and AMQP ingest.
public enum EventInput {
    static let allowed: Set<String> = ["id", "event", "subscriberId", "properties", "timestamp"]
    /// The SDK's own events: the only names that may start with `$`.
    static let sdkEvents: Set<String> = [BuzzEvent.localScheduled, BuzzEvent.localReleased, BuzzEvent.pushOpened,
                                         BuzzEvent.pushAction, BuzzEvent.localSnoozed]
    /// The largest event body accepted, over HTTP (the server's body limit) and over AMQP alike.
    public static let maxBodyBytes = 1 << 20
    /// The longest `properties.device` accepted (the limit device registration applies).
    static let maxDeviceBytes = 200

    /// `properties.device` of `$local.scheduled` / `$local.released`: empty (the client does not
    /// say), or hex digits of either case (stored lowercased, as registration stores tokens).
    static func isDeviceToken(_ text: String) -> Bool {
        text.utf8.count <= maxDeviceBytes && text.utf8.allSatisfy { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }
    }

    /// A plan's local id: `<runId>/<stepName>`, the run id a UUID and the step name no longer
    /// than a workflow's may be (an over-long one would fail PostgreSQL's index, a 500).
    static func isLocalId(_ text: String) -> Bool {
        guard let slash = text.firstIndex(of: "/"), text.index(after: slash) < text.endIndex else { return false }
        guard text[text.index(after: slash)...].utf8.count <= WorkflowDefinition.maxStepNameLength else { return false }
        return UUID(uuidString: String(text[..<slash])) != nil
    }

    /// Validates one event object.
    public static func parse(_ value: JSONValue, path: String, now: Date) throws -> BuzzEvent {
        let fields = try InputFields(value, path: path, allowed: allowed)
        let name = try fields.requiredString("event", maxLength: 200)
        guard !name.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "#" }) else {
            throw ServerError.input("\(fields.field("event")) may not contain spaces, * or #", reason: "invalid_value", field: fields.field("event"))
        }
        if name.hasPrefix("$") && !sdkEvents.contains(name) {
            throw ServerError.input("\(fields.field("event")): names starting with $ are reserved for the SDK (\(sdkEvents.sorted().joined(separator: ", ")))",
                                       reason: "invalid_value", field: fields.field("event"))
        }
        let subscriberId = try fields.requiredString("subscriberId", maxLength: 200)
        let properties = try fields.object("properties") ?? [:]
        var timestamp = now
        if let text = try fields.string("timestamp", required: false, maxLength: 64) {
            guard let parsed = RFC3339.parse(text) else {
                throw ServerError.input("\(fields.field("timestamp")) must be an RFC 3339 instant such as 2026-11-30T09:00:00Z", reason: "invalid_value", field: fields.field("timestamp"))
            }
            timestamp = parsed
        }
        if name == BuzzEvent.localScheduled || name == BuzzEvent.localReleased {
            for key in ["localId", "messageId"] {
                guard case .string(let text)? = properties[key], !text.isEmpty, text.utf8.count <= 200 else {
                    throw ServerError.input("\(name) needs properties.\(key) (a string of at most 200 bytes)", reason: "missing_field", field: InputFields.join(fields.field("properties"), key))
                }
            }
            if case .string(let localId)? = properties["localId"], !isLocalId(localId) {
                throw ServerError.input("\(name) needs properties.localId of the form <runId>/<stepName> (the run's UUID, a slash, the step name)",
                                 reason: "invalid_value", field: InputFields.join(fields.field("properties"), "localId"))
            }
            if let device = properties["device"], !device.isNull {
                guard case .string(let token) = device, isDeviceToken(token) else {
                    let got = device.stringValue == nil ? ", got \(device.typeDescription)" : ""
                    throw ServerError.input("\(name): properties.device must be the device's push token in hex (at most \(maxDeviceBytes) digits)\(got)",
                                     reason: "invalid_value", field: InputFields.join(fields.field("properties"), "device"))
                }
            }
        }
        if name == BuzzEvent.pushOpened || name == BuzzEvent.pushAction || name == BuzzEvent.localSnoozed {
            guard case .string(let messageId)? = properties["messageId"], !messageId.isEmpty, messageId.utf8.count <= 200 else {
                throw ServerError.input("\(name) needs properties.messageId (a string of at most 200 bytes)", reason: "missing_field",
                                        field: InputFields.join(fields.field("properties"), "messageId"))
            }
        }
        if name == BuzzEvent.pushAction || name == BuzzEvent.localSnoozed {
            guard case .string(let actionId)? = properties["actionId"], !actionId.isEmpty, actionId.utf8.count <= 64 else {
                throw ServerError.input("\(name) needs properties.actionId (the button's id, at most 64 bytes)", reason: "missing_field",
                                        field: InputFields.join(fields.field("properties"), "actionId"))
            }
        }
        return BuzzEvent(id: try fields.string("id", required: false, maxLength: 200), event: name, subscriberId: subscriberId,
                         properties: properties, timestamp: timestamp)
    }
}
