import BuzzKitWire

extension DefinitionParser {
    mutating func parseStepList(_ value: JSONValue, at path: String, depth: Int, allowEmpty: Bool) -> [Step]? {
        guard case .array(let elements) = value else {
            report(.wrongType, path, "expected an array of steps, got \(describe(value))")
            return nil
        }
        if elements.isEmpty && !allowEmpty {
            report(.invalidValue, path, "has no steps; add at least one step")
            return nil
        }
        var steps: [Step] = []
        var complete = true
        for (index, element) in elements.enumerated() {
            if let step = parseStep(element, at: "\(path)[\(index)]", depth: depth) {
                steps.append(step)
            } else {
                complete = false
            }
        }
        return complete ? steps : nil
    }

    private mutating func parseStep(_ value: JSONValue, at path: String, depth: Int) -> Step? {
        stepCount += 1
        if stepCount == DefinitionParser.maxSteps + 1 {
            report(.invalidValue, path, "is step number \(stepCount); a workflow has at most \(DefinitionParser.maxSteps) steps")
        }
        guard let members = object(value, at: path, expected: "a step object such as {\"name\": \"nudge\", \"send\": {…}}") else { return nil }
        let name = required(members, "name", at: path, hint: "every step needs a unique name")
            .flatMap { identifier($0, at: join(path, "name"), maxLength: DefinitionParser.maxStepNameLength) }
        if let name {
            let namePath = join(path, "name")
            if let first = stepNames[name] {
                report(.duplicateName, namePath,
                       "duplicate step name \"\(name)\", already used at \(first); step names must be unique across the workflow, branches included")
            } else {
                stepNames[name] = namePath
            }
        }
        let kinds = Step.Kind.names.filter { members[$0] != nil }
        let others = members.keys.filter { $0 != "name" && !Step.Kind.names.contains($0) }.sorted()
        let expected = Step.Kind.names.joined(separator: ", ")
        if kinds.isEmpty {
            if others.isEmpty {
                report(.missingField, path, "has no kind; add one of \(expected)")
            }
            for key in others {
                report(.unknownStepKind, join(path, key), "unknown step kind \"\(key)\"; expected one of \(expected)")
            }
            return nil
        }
        for key in others {
            report(.unknownField, join(path, key), "unknown field \"\(key)\"; a step has a name and exactly one of \(expected)")
        }
        guard kinds.count == 1 else {
            report(.invalidValue, path, "has \(kinds.count) kinds (\(kinds.joined(separator: ", "))); a step does exactly one thing, so split it into \(kinds.count) steps")
            return nil
        }
        let kindPath = join(path, kinds[0])
        let kindValue = members[kinds[0]]!
        let kind: Step.Kind?
        switch kinds[0] {
        case "waitUntil": kind = parseWaitUntil(kindValue, at: kindPath).map(Step.Kind.waitUntil)
        case "delay": kind = parseDelay(kindValue, at: kindPath).map(Step.Kind.delay)
        case "branch": kind = parseBranch(kindValue, at: kindPath, depth: depth).map(Step.Kind.branch)
        default: kind = parseSend(kindValue, at: kindPath, stepName: name ?? "step").map(Step.Kind.send)
        }
        guard let name, let kind else { return nil }
        return Step(name: name, kind: kind)
    }

    private mutating func parseWaitUntil(_ value: JSONValue, at path: String) -> Step.WaitUntil? {
        guard let members = object(value, at: path, expected: "an object: {\"time\", \"timezone\"} or {\"at\", \"offset\"?}") else { return nil }
        refuseUnknown(members, allowed: ["time", "timezone", "at", "offset"], at: path)
        let hasTime = members["time"] != nil, hasAt = members["at"] != nil
        if hasTime && hasAt {
            report(.invalidValue, path, "has both \"time\" and \"at\"; use {\"time\", \"timezone\"} or {\"at\", \"offset\"?}")
            return nil
        }
        if !hasTime && !hasAt {
            report(.missingField, path, "needs \"time\" with \"timezone\", or \"at\"")
            return nil
        }
        if hasTime {
            if members["offset"] != nil {
                report(.invalidValue, join(path, "offset"), "\"offset\" only goes with \"at\"; move the time itself instead")
            }
            let time = string(members["time"]!, at: join(path, "time")).flatMap { text -> WallClockTime? in
                guard let time = WallClockTime(parsing: text) else {
                    report(.invalidTime, join(path, "time"), "expected a time \"HH:MM\" or \"HH:MM:SS\" from 00:00 to 23:59:59, got \"\(text)\"")
                    return nil
                }
                return time
            }
            let zone = required(members, "timezone", at: path, hint: "use \"subscriber\" or an IANA zone name such as \"Europe/Berlin\"")
                .flatMap { zoneChoice($0, at: join(path, "timezone")) }
            guard let time, let zone else { return nil }
            return .time(time, zone: zone)
        }
        if members["timezone"] != nil {
            report(.invalidValue, join(path, "timezone"), "\"timezone\" only goes with \"time\"; an \"at\" instant carries its own UTC offset")
        }
        let atPath = join(path, "at")
        let at = string(members["at"]!, at: atPath).flatMap { template($0, at: atPath) }
        if let at, at.isConstant, RFC3339.parse(at.source) == nil {
            report(.invalidValue, atPath,
                   "expected an RFC 3339 instant such as \"2026-11-30T09:00:00Z\" or a template such as \"{{trigger.startsAt}}\", got \"\(at.source)\"")
            return nil
        }
        var offset: SignedDuration?
        if let offsetValue = members["offset"] {
            guard let text = string(offsetValue, at: join(path, "offset"), nonEmpty: false) else { return nil }
            guard let parsed = SignedDuration(parsing: text) else {
                report(.invalidValue, join(path, "offset"),
                       "expected a duration such as \"-1h30m\", \"2d\" or \"45m\" (parts d, h, m, s in that order, at most 400 days), got \"\(text)\"")
                return nil
            }
            offset = parsed
        }
        guard let at else { return nil }
        return .at(at, offset: offset)
    }

    private mutating func zoneChoice(_ value: JSONValue, at path: String) -> Step.WaitUntil.Zone? {
        guard let text = string(value, at: path) else { return nil }
        if text == "subscriber" { return .subscriber }
        guard ZoneRules(identifier: text) != nil else {
            report(.unknownTimeZone, path, "unknown time zone \"\(text)\"; use \"subscriber\" or an IANA name such as \"Europe/Berlin\"")
            return nil
        }
        return .named(text)
    }

    mutating func template(_ text: String, at path: String) -> Template? {
        do {
            return try Template(parsing: text)
        } catch {
            report(error.code, path, error.message)
            return nil
        }
    }

    private mutating func parseDelay(_ value: JSONValue, at path: String) -> Step.Delay? {
        let units = ["days", "hours", "minutes", "seconds"]
        guard let members = object(value, at: path, expected: "an object such as {\"hours\": 2}") else { return nil }
        refuseUnknown(members, allowed: units, at: path)
        var parts: [String: Int64] = [:]
        var valid = true
        for unit in units {
            guard let member = members[unit] else { continue }
            guard case .number(let number) = member, let whole = number.int64Value, whole >= 0,
                  whole <= SignedDuration.limit else {
                report(.invalidValue, join(path, unit), "expected a whole number of \(unit) from 0, got \(describe(member))")
                valid = false
                continue
            }
            parts[unit] = whole
        }
        guard valid else { return nil }
        guard !parts.isEmpty else {
            report(.missingField, path, "needs at least one of \(units.joined(separator: ", "))")
            return nil
        }
        let delay = Step.Delay(days: parts["days"], hours: parts["hours"], minutes: parts["minutes"], seconds: parts["seconds"])
        guard delay.totalSeconds <= SignedDuration.limit else {
            report(.invalidValue, path, "adds up to more than 400 days; use a waitUntil with \"at\" for far-off moments")
            return nil
        }
        return delay
    }

    private mutating func parseBranch(_ value: JSONValue, at path: String, depth: Int) -> Step.Branch? {
        guard let members = object(value, at: path, expected: "an object: {\"if\", \"then\", \"else\"?}") else { return nil }
        refuseUnknown(members, allowed: ["if", "then", "else"], at: path)
        guard depth < DefinitionParser.maxBranchDepth else {
            report(.invalidValue, path, "branches nest deeper than \(DefinitionParser.maxBranchDepth) levels; flatten the workflow")
            return nil
        }
        let condition = required(members, "if", at: path, hint: "give the condition on the trigger event's properties")
            .flatMap { parseCondition($0, at: join(path, "if")) }
        let then = required(members, "then", at: path, hint: "give the steps to run when the condition holds")
            .flatMap { parseStepList($0, at: join(path, "then"), depth: depth + 1, allowEmpty: false) }
        var elseSteps: [Step]? = []
        if let elseValue = members["else"] {
            elseSteps = parseStepList(elseValue, at: join(path, "else"), depth: depth + 1, allowEmpty: true)
        }
        guard let condition, let then, let elseSteps else { return nil }
        return Step.Branch(condition: condition, then: then, else: elseSteps)
    }

    mutating func parseSend(_ value: JSONValue, at path: String, stepName: String) -> Step.Send? {
        guard let members = object(value, at: path, expected: "an object: {\"deliver\", \"title\", \"body\", …}") else { return nil }
        refuseUnknown(members, allowed: ["deliver", "title", "body", "deepLink", "data", "quietHours", "expiresAfter"] + Self.presentationMembers, at: path)
        let deliver = required(members, "deliver", at: path, hint: "use \"local\" or \"push\"").flatMap { value -> Step.Send.Delivery? in
            guard case .string(let text) = value, let delivery = Step.Send.Delivery(rawValue: text) else {
                report(.invalidValue, join(path, "deliver"), "expected \"local\" or \"push\", got \(describe(value))")
                return nil
            }
            return delivery
        }
        let titlePath = join(path, "title"), bodyPath = join(path, "body")
        let title = required(members, "title", at: path, hint: "every notification needs a title")
            .flatMap { string($0, at: titlePath) }.flatMap { template($0, at: titlePath) }
        let body = required(members, "body", at: path, hint: "every notification needs a body")
            .flatMap { string($0, at: bodyPath, nonEmpty: false) }.flatMap { template($0, at: bodyPath) }
        var deepLink: String?
        var valid = true
        if let link = members["deepLink"] {
            deepLink = string(link, at: join(path, "deepLink"))
            valid = valid && deepLink != nil
        }
        var data: [String: JSONValue] = [:]
        if let dataValue = members["data"] {
            if let object = object(dataValue, at: join(path, "data"), expected: "an object") { data = object } else { valid = false }
        }
        var quietHours = QuietHours.Policy.shift
        if let policyValue = members["quietHours"] {
            if case .string(let text) = policyValue, let policy = QuietHours.Policy(rawValue: text) {
                quietHours = policy
            } else {
                report(.invalidValue, join(path, "quietHours"), "expected \"shift\" or \"ignore\", got \(describe(policyValue))")
                valid = false
            }
        }
        var expiresAfter = Step.Send.defaultExpiresAfter
        if let lifetimeValue = members["expiresAfter"] {
            if case .string(let text) = lifetimeValue, !text.hasPrefix("-"), !text.hasPrefix("+"),
               let duration = SignedDuration(parsing: text), duration.seconds > 0, duration.seconds <= Step.Send.longestExpiresAfter {
                expiresAfter = duration.seconds
            } else {
                report(.invalidValue, join(path, "expiresAfter"),
                       "expected a duration from \"1s\" to \"7d\" such as \"30m\" or \"2h\", got \(describe(lifetimeValue))")
                valid = false
            }
        }
        let presentation = parsePresentation(members, at: path)
        guard valid, let deliver, let title, let body, let presentation else { return nil }
        let send = Step.Send(deliver: deliver, title: title, body: body, deepLink: deepLink, data: data, quietHours: quietHours,
                             expiresAfter: expiresAfter, presentation: presentation.0, actions: presentation.1)
        let size = PayloadBuilder.largestBodySize(of: send, stepName: stepName, deviceCancelOn: deviceCancelOn)
        guard size <= PayloadBuilder.apnsPayloadLimit else {
            report(.payloadTooLarge, path,
                   "the notification would be \(size) bytes before templates are filled in, over APNs' \(PayloadBuilder.apnsPayloadLimit)-byte limit; shorten the title, body, data or buttons")
            return nil
        }
        return send
    }
}
