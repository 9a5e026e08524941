import BuzzKitWire
import Foundation

/// The compact stored form of a run (``RunStateForm/compact``): the same state as the verbose
/// form, in fewer bytes. Keys are short; instants are milliseconds since 1970 (read back as the
/// very `Date`s the verbose form's text gives, see ``RFC3339/instant(epochMilliseconds:)``);
/// what the state holds twice is written once and derived on reading:
/// - the run id, in `ctx` only (not in a pending timer, nor in a plan's id when that is
///   `<run id>/<step name>`, as the engine makes it);
/// - a pending timer's generation and step, when they are the run's own (`gen`, `cur`);
/// - a step's path, when it is `steps[i]` for its place `i` in the list;
/// - a window's moment, when it is its step's due time;
/// - flags that are false, and a window's `planSentTo` of 0.
/// The trigger, the plan, a fallback, a cancellation and a failure keep their own forms.
extension RunState {
    /// The compact form's version (`"v"`).
    public static let compactStorageVersion = 2

    /// Writes the compact form, without the workflow snapshot when `includingWorkflow` is false.
    public func writeCompact(to writer: inout JSONWriter, includingWorkflow: Bool) {
        writer.beginObject()
        writer.member("v", RunState.compactStorageVersion)
        if includingWorkflow { writer.member("workflow", CodableBridge.value(of: workflow)) }
        writer.member("trigger", trigger)
        writer.key(literal: "ctx")
        writer.beginObject()
        writer.member("id", context.runId)
        if context.dryRun { writer.member("dry", true) }
        if !context.hasSubscriber { writer.member("noSub", true) }
        if let zone = context.subscriberTimeZone { writer.member("tz", zone) }
        if let zone = context.tenantDefaultTimeZone { writer.member("ttz", zone) }
        if let quietHours = context.quietHours { writer.member("qh", quietHours) }
        writer.member("lead", context.immediateLocalLead)
        writer.endObject()
        writer.member("st", status.rawValue)
        if !started { writer.member("new", true) }
        if let cursor { writer.member("cur", cursor.description) }
        writer.member("gen", generation)
        if let timer = pendingTimer {
            writer.key(literal: "timer")
            writer.beginObject()
            writer.member("k", timer.purpose.rawValue)
            if timer.runId != context.runId { writer.member("r", timer.runId) }
            if timer.generation != generation { writer.member("g", timer.generation) }
            if timer.stepPath != cursor { writer.member("p", timer.stepPath.description) }
            writer.member("at", RFC3339.epochMilliseconds(of: timer.at))
            writer.endObject()
        }
        writer.key(literal: "steps")
        writer.beginArray()
        for (index, step) in steps.enumerated() { step.writeCompact(to: &writer, index: index, runId: context.runId) }
        writer.endArray()
        if let openWindow { writer.member("open", openWindow) }
        if planSent { writer.member("ps", true) }
        if let cancellation { writer.member("cancelled", cancellation) }
        if let failure { writer.member("failure", CodableBridge.value(of: failure)) }
        writer.member("rev", revision)
        writer.endObject()
    }

    /// Reads the compact form (`fields` holds `"v"`).
    init(compact fields: JSONFields, workflow supplied: WorkflowDefinition?) throws {
        let version = try fields.int("v")
        guard version == RunState.compactStorageVersion else { throw RunState.unsupported(version, key: "v") }
        workflow = try RunState.workflow(in: fields, supplied: supplied)
        trigger = try fields.read("trigger")
        let ctx = try JSONFields(try fields.value("ctx") ?? { throw JSONFields.Failure(path: "ctx", reason: "is missing") }(), path: "ctx")
        context = RunContext(runId: try ctx.string("id"), dryRun: try ctx.flag("dry"), hasSubscriber: !(try ctx.flag("noSub")),
                             subscriberTimeZone: try ctx.optionalString("tz"), tenantDefaultTimeZone: try ctx.optionalString("ttz"),
                             quietHours: try ctx.optionalRead("qh"), immediateLocalLead: try ctx.int("lead"))
        status = try fields.raw("st")
        started = !(try fields.flag("new"))
        cursor = try fields.optionalRead("cur")
        generation = try fields.int("gen")
        if let json = fields.value("timer") {
            let timer = try JSONFields(json, path: "timer")
            guard let path = try timer.optionalRead("p", as: StepPath.self) ?? cursor else {
                throw JSONFields.Failure(path: "timer.p", reason: "is missing, and the run has no cursor to take it from")
            }
            pendingTimer = RunTimer(runId: try timer.optionalString("r") ?? context.runId, generation: try timer.optionalInt("g") ?? generation,
                                    stepPath: path, purpose: try timer.raw("k"), at: try timer.epochInstant("at"))
        } else {
            pendingTimer = nil
        }
        let runId = context.runId
        steps = try fields.array("steps").enumerated().map { index, json in
            try StepRecord(compact: try JSONFields(json, path: "steps[\(index)]"), index: index, runId: runId)
        }
        openWindow = try fields.optionalInt("open")
        planSent = try fields.flag("ps")
        cancellation = try fields.optionalRead("cancelled")
        failure = try fields.value("failure").map { try CodableBridge.decode(EngineError.self, from: $0, path: "failure") }
        revision = try fields.int("rev")
        try checkOpenWindow()
    }
}

extension StepRecord {
    /// The plan id the engine gives this step's window.
    private static func planId(runId: String, name: String) -> String { runId + "/" + name }

    func writeCompact(to writer: inout JSONWriter, index: Int, runId: String) {
        writer.beginObject()
        writer.member("n", name)
        if path != StepPath(root: index) { writer.member("p", path.description) }
        writer.member("s", status.rawValue)
        writer.member("t", RFC3339.epochMilliseconds(of: startedAt))
        if let finishedAt { writer.member("f", RFC3339.epochMilliseconds(of: finishedAt)) }
        if let dueAt { writer.member("due", RFC3339.epochMilliseconds(of: dueAt)) }
        if let local {
            writer.key(literal: "l")
            writer.beginObject()
            writer.key(literal: "plan")
            local.plan.write(to: &writer, includingId: local.plan.id != StepRecord.planId(runId: runId, name: name))
            if local.moment != dueAt { writer.member("m", RFC3339.epochMilliseconds(of: local.moment)) }
            if local.shiftedByQuietHours { writer.member("qs", true) }
            if local.planSent { writer.member("ps", true) }
            if local.planSentTo != 0 { writer.member("to", local.planSentTo) }
            if local.acknowledged { writer.member("ack", true) }
            if let at = local.acknowledgedAt { writer.member("ackAt", RFC3339.epochMilliseconds(of: at)) }
            if let reason = local.releaseReason { writer.member("rr", reason) }
            if let fallback = local.fallback { writer.member("fb", fallback) }
            writer.endObject()
        }
        writer.endObject()
    }

    init(compact fields: JSONFields, index: Int, runId: String) throws {
        let dueAt = try fields.optionalEpochInstant("due")
        let name = try fields.string("n")
        var local: LocalWindowRecord?
        if let json = fields.value("l") {
            let window = try JSONFields(json, path: fields.path + ".l")
            guard let moment = try window.optionalEpochInstant("m") ?? dueAt else {
                throw JSONFields.Failure(path: window.path + ".m", reason: "is missing, and the step has no due time to take it from")
            }
            guard case .object(var plan)? = window.value("plan") else {
                throw JSONFields.Failure(path: window.path + ".plan", reason: "expected an object")
            }
            if plan["id"] == nil { plan["id"] = .string(StepRecord.planId(runId: runId, name: name)) }
            var record = LocalWindowRecord(plan: try LocalPlan(json: .object(plan), path: window.path + ".plan"), moment: moment, shiftedByQuietHours: try window.flag("qs"),
                                           planSent: try window.flag("ps"))
            record.planSentTo = try window.optionalInt("to") ?? 0
            record.acknowledged = try window.flag("ack")
            record.acknowledgedAt = try window.optionalEpochInstant("ackAt")
            record.releaseReason = try window.optionalString("rr")
            record.fallback = try window.optionalRead("fb")
            local = record
        }
        self.init(name: name, path: try fields.optionalRead("p") ?? StepPath(root: index), status: try fields.raw("s"),
                  startedAt: try fields.epochInstant("t"), finishedAt: try fields.optionalEpochInstant("f"), dueAt: dueAt, local: local)
    }
}

extension JSONFields {
    /// A flag the compact form writes only when it is true.
    fileprivate func flag(_ key: String) throws -> Bool {
        value(key) == nil ? false : try bool(key)
    }

    /// An instant written as milliseconds since 1970.
    fileprivate func epochInstant(_ key: String) throws -> Date {
        RFC3339.instant(epochMilliseconds: Int64(try int(key)))
    }

    fileprivate func optionalEpochInstant(_ key: String) throws -> Date? {
        guard value(key) != nil else { return nil }
        return try epochInstant(key)
    }
}
