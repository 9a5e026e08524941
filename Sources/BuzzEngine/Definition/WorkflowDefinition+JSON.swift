import BuzzKitWire

extension WorkflowDefinition: Codable {
    /// The definition as JSON, in the same form ``parse(_:)-(JSONValue)`` reads.
    public var jsonValue: JSONValue {
        var root: [String: JSONValue] = [
            "key": .string(key),
            "trigger": .object(["event": .string(triggerEvent)]),
            "steps": .array(steps.map(WorkflowDefinition.json(of:))),
        ]
        if !cancelOn.isEmpty {
            root["cancelOn"] = .array(cancelOn.map { rule in
                var members: [String: JSONValue] = ["event": .string(rule.event)]
                if let condition = rule.condition { members["where"] = condition.jsonValue }
                return .object(members)
            })
        }
        return .object(root)
    }

    /// Decodes and validates a definition; an invalid one fails with the problems listed.
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do {
            self = try WorkflowDefinition.parse(json)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    /// Encodes the definition as its JSON form.
    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }

    static func json(of step: Step) -> JSONValue {
        let body: JSONValue
        switch step.kind {
        case .waitUntil(.time(let time, let zone)):
            body = ["time": .string(time.description), "timezone": .string(zone.description)]
        case .waitUntil(.at(let at, let offset)):
            var members: [String: JSONValue] = ["at": .string(at.source)]
            if let offset { members["offset"] = .string(offset.text) }
            body = .object(members)
        case .delay(let delay):
            var members: [String: JSONValue] = [:]
            if let days = delay.days { members["days"] = .number(.int(days)) }
            if let hours = delay.hours { members["hours"] = .number(.int(hours)) }
            if let minutes = delay.minutes { members["minutes"] = .number(.int(minutes)) }
            if let seconds = delay.seconds { members["seconds"] = .number(.int(seconds)) }
            body = .object(members)
        case .branch(let branch):
            var members: [String: JSONValue] = [
                "if": branch.condition.jsonValue, "then": .array(branch.then.map(json(of:))),
            ]
            if !branch.else.isEmpty { members["else"] = .array(branch.else.map(json(of:))) }
            body = .object(members)
        case .send(let send):
            var members: [String: JSONValue] = [
                "deliver": .string(send.deliver.rawValue), "title": .string(send.title.source),
                "body": .string(send.body.source), "data": .object(send.data),
                "quietHours": .string(send.quietHours.rawValue),
            ]
            if let deepLink = send.deepLink { members["deepLink"] = .string(deepLink) }
            if send.expiresAfter != Step.Send.defaultExpiresAfter { members["expiresAfter"] = .string("\(send.expiresAfter)s") }
            let presentation = send.presentation
            if presentation.interruptionLevel != .active { members["interruptionLevel"] = .string(presentation.interruptionLevel.rawValue) }
            if presentation.sound != NotificationPresentation.defaultSound { members["sound"] = presentation.sound.map(JSONValue.string) ?? .null }
            if let threadId = presentation.threadId { members["threadId"] = .string(threadId) }
            if let badge = presentation.badge { members["badge"] = .number(.int(Int64(badge))) }
            if !send.actions.isEmpty {
                members["actions"] = .array(send.actions.map { action in
                    var button: [String: JSONValue] = ["id": .string(action.id), "title": .string(action.title)]
                    if let event = action.event { button["event"] = .string(event) }
                    if action.foreground { button["foreground"] = .bool(true) }
                    if action.destructive { button["destructive"] = .bool(true) }
                    if let snooze = action.snooze { button["snooze"] = .string(snooze) }
                    return .object(button)
                })
            }
            body = .object(members)
        }
        return .object(["name": .string(step.name), step.kind.name: body])
    }
}
