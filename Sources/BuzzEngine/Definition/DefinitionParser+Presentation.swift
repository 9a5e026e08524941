import BuzzKitWire

/// A send's presentation and buttons (DESIGN §4c): `interruptionLevel`, `sound`, `threadId`,
/// `badge` and `actions`, each refused with its JSON path when it is not what iOS and APNs take.
extension DefinitionParser {
    /// The members of a send this file reads.
    static let presentationMembers = ["interruptionLevel", "sound", "threadId", "badge", "actions"]
    /// The longest `sound` file name, `threadId`, action id and action title.
    static let maxSoundLength = 255
    static let maxThreadIdLength = 64
    static let maxActionTitleLength = 64
    /// The largest `badge`.
    static let maxBadge = 99_999

    /// The presentation (without its category, which ``Step/Send`` derives from the actions)
    /// and the actions of the send `members` at `path`; `nil` when something was refused.
    mutating func parsePresentation(_ members: [String: JSONValue], at path: String) -> (NotificationPresentation, [NotificationAction])? {
        var presentation = NotificationPresentation.standard
        var valid = true
        if let value = members["interruptionLevel"] {
            if case .string(let text) = value, let level = NotificationPresentation.InterruptionLevel(rawValue: text) {
                presentation.interruptionLevel = level
            } else {
                report(.invalidValue, join(path, "interruptionLevel"), "expected \"passive\", \"active\" or \"timeSensitive\", got \(describe(value))")
                valid = false
            }
        }
        switch members["sound"] {
        case nil: break
        case .some(.null): presentation.sound = nil
        case .some(let value):
            if let name = string(value, at: join(path, "sound")), name.utf8.count <= Self.maxSoundLength, !name.contains("/") {
                presentation.sound = name
            } else {
                if case .string = value {
                    report(.invalidValue, join(path, "sound"), "expected \"default\", a sound file bundled with the app (no \"/\", at most \(Self.maxSoundLength) bytes) or null")
                }
                valid = false
            }
        }
        if let value = members["threadId"] {
            if let thread = string(value, at: join(path, "threadId")), thread.utf8.count <= Self.maxThreadIdLength {
                presentation.threadId = thread
            } else {
                if case .string = value { report(.invalidValue, join(path, "threadId"), "is longer than \(Self.maxThreadIdLength) bytes") }
                valid = false
            }
        }
        if let value = members["badge"] {
            if case .number(let number) = value, let badge = number.int64Value, badge >= 0, badge <= Self.maxBadge {
                presentation.badge = Int(badge)
            } else {
                report(.invalidValue, join(path, "badge"), "expected an integer from 0 (clears the badge) to \(Self.maxBadge), got \(describe(value))")
                valid = false
            }
        }
        var actions: [NotificationAction] = []
        if let value = members["actions"] {
            if let parsed = parseActions(value, at: join(path, "actions")) { actions = parsed } else { valid = false }
        }
        return valid ? (presentation, actions) : nil
    }

    /// `actions`: at most four `{id, title, event?, foreground?, destructive?, snooze?}` with
    /// distinct ids.
    private mutating func parseActions(_ value: JSONValue, at path: String) -> [NotificationAction]? {
        guard case .array(let elements) = value else {
            report(.wrongType, path, "expected an array of buttons such as [{\"id\": \"done\", \"title\": \"Done\"}], got \(describe(value))")
            return nil
        }
        guard elements.count <= Step.Send.maximumActions else {
            report(.invalidValue, path, "has \(elements.count) buttons; iOS shows at most \(Step.Send.maximumActions)")
            return nil
        }
        var actions: [NotificationAction] = []
        var seen: Set<String> = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let actionPath = "\(path)[\(index)]"
            guard let action = parseAction(element, at: actionPath) else { valid = false; continue }
            guard seen.insert(action.id).inserted else {
                report(.duplicateName, join(actionPath, "id"), "the button id \"\(action.id)\" is used twice in this send; give each its own")
                valid = false
                continue
            }
            actions.append(action)
        }
        return valid ? actions : nil
    }

    private mutating func parseAction(_ value: JSONValue, at path: String) -> NotificationAction? {
        guard let members = object(value, at: path, expected: "a button object: {\"id\", \"title\", \"event\"?, \"foreground\"?, \"destructive\"?, \"snooze\"?}") else {
            return nil
        }
        refuseUnknown(members, allowed: ["id", "title", "event", "foreground", "destructive", "snooze"], at: path)
        let id = required(members, "id", at: path, hint: "every button needs an id (tracked as actionId)")
            .flatMap { identifier($0, at: join(path, "id"), maxLength: 64) }
        let titlePath = join(path, "title")
        var title = required(members, "title", at: path, hint: "every button needs a title").flatMap { string($0, at: titlePath) }
        if let text = title, text.count > Self.maxActionTitleLength {
            report(.invalidValue, titlePath, "is longer than \(Self.maxActionTitleLength) characters; iOS cuts a long button title")
            title = nil
        }
        var valid = true
        var event: String?
        if let value = members["event"] {
            event = eventName(value, at: join(path, "event"))
            if let name = event, name.hasPrefix("$") {
                report(.invalidValue, join(path, "event"), "names starting with \"$\" are BuzzKit's own; use an event of the app such as \"workout.completed\"")
                event = nil
            }
            valid = valid && event != nil
        }
        var flags: [String: Bool] = [:]
        for key in ["foreground", "destructive"] {
            guard let value = members[key] else { continue }
            if case .bool(let flag) = value { flags[key] = flag } else {
                report(.wrongType, join(path, key), "expected true or false, got \(describe(value))")
                valid = false
            }
        }
        var snooze: String?
        if let value = members["snooze"] {
            if case .string(let text) = value, NotificationAction(id: "s", title: "s", snooze: text).snoozeSeconds != nil {
                snooze = text
            } else {
                report(.invalidValue, join(path, "snooze"), "expected a duration from \"1s\" to \"1d\" such as \"10m\", got \(describe(value))")
                valid = false
            }
        }
        guard valid, let id, let title else { return nil }
        return NotificationAction(id: id, title: title, event: event, foreground: flags["foreground"] ?? false,
                                  destructive: flags["destructive"] ?? false, snooze: snooze)
    }
}
