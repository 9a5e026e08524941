import BuzzKitWire
import Foundation

/// Push payloads built with the real wire types, so tests feed the SDK the exact bytes the
/// server sends.
enum Payloads {
    /// A `bk.local` silent push.
    static func plan(_ localId: String, messageId: String? = nil, fireAt: FireAt, cancelOn: [String] = [],
                     deepLink: String? = "gym://workouts/legs", data: [String: JSONValue] = ["workoutId": "w1"],
                     title: String = "Leg day", body: String = "6:00 with Maya.") -> [String: JSONValue] {
        let plan = LocalPlan(id: localId, messageId: messageId ?? "msg-\(localId)", fireAt: fireAt, title: title,
                             body: body, deepLink: deepLink, data: data, cancelOn: cancelOn)
        return members(SilentPlanPayload(local: plan).jsonBytes)
    }

    /// A `bk.cancel` silent push.
    static func cancel(_ id: String) -> [String: JSONValue] {
        members(CancelPayload(id: id).jsonBytes)
    }

    /// A fallback alert for a local window.
    static func fallback(localId: String, messageId: String, deepLink: String? = "gym://workouts/legs") -> [String: JSONValue] {
        members(AlertPayload(title: "Leg day", body: "6:00 with Maya.", messageId: messageId, localId: localId,
                             deepLink: deepLink, data: ["workoutId": "w1"]).jsonBytes)
    }

    /// The bytes decoded as JSON members.
    static func members(_ bytes: [UInt8]) -> [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: Data(bytes))) ?? [:]
    }
}
