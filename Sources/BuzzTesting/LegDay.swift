import BuzzKitWire
import Foundation

/// The leg-day workflow of docs/contract.md §2, the one workflow fixture of the server's
/// suites: a run waits for its moment, then shows "Leg day" as a local notification; it is
/// cancelled by `workout.completed`, and by `workout.moved` of the same workout.
public enum LegDay {
    /// When the run's notification is due.
    public enum Moment: Sendable {
        /// 07:00 in the subscriber's timezone (the contract's example).
        case sevenInTheSubscribersZone
        /// The trigger's `at` property (tests choose the moment exactly).
        case triggerAt
    }

    /// The definition as JSON text; `expiresAfter` sets the send's lifetime (DESIGN §4c).
    public static func text(_ moment: Moment = .sevenInTheSubscribersZone, expiresAfter: String? = nil) -> String {
        let wait = switch moment {
        case .sevenInTheSubscribersZone: #"{ "time": "07:00", "timezone": "subscriber" }"#
        case .triggerAt: #"{ "at": "{{trigger.at}}" }"#
        }
        let lifetime = expiresAfter.map { #", "expiresAfter": "\#($0)""# } ?? ""
        return """
            { "key": "leg-day",
              "trigger": { "event": "workout.scheduled" },
              "cancelOn": [ { "event": "workout.completed" },
                            { "event": "workout.moved", "where": { "workoutId": { "$trigger": "workoutId" } } } ],
              "steps": [
                { "name": "morning-of", "waitUntil": \(wait) },
                { "name": "nudge", "send": { "deliver": "local", "title": "Leg day", "body": "6:00 with Maya.",
                                             "deepLink": "gym://workouts/legs", "data": {}, "quietHours": "shift"\(lifetime) } } ] }
            """
    }

    /// The definition as a ``JSONValue``; `send` adds or replaces members of the nudge's send
    /// (`deliver`, `expiresAfter`, buttons, presentation, …).
    public static func value(_ moment: Moment = .sevenInTheSubscribersZone, expiresAfter: String? = nil,
                             send: [String: JSONValue] = [:]) -> JSONValue {
        let parsed = try! JSONParser.parse(Data(text(moment, expiresAfter: expiresAfter).utf8))
        guard !send.isEmpty, case .object(var root) = parsed, case .array(var steps)? = root["steps"],
              case .object(var nudge) = steps[1], case .object(var members)? = nudge["send"] else { return parsed }
        members.merge(send) { $1 }
        nudge["send"] = .object(members)
        steps[1] = .object(nudge)
        root["steps"] = .array(steps)
        return .object(root)
    }

    /// The definition as Foundation objects, a request body.
    public static func object(_ moment: Moment = .sevenInTheSubscribersZone, expiresAfter: String? = nil) -> [String: Any] {
        try! JSONSerialization.jsonObject(with: Data(text(moment, expiresAfter: expiresAfter).utf8)) as! [String: Any]
    }
}
