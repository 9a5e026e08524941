import BuzzKitWire
import Foundation

/// The stored form of a run, read and written by hand: the same JSON as the `Codable`
/// conformance (tests compare the two on every kind of state), at a fraction of the cost. A
/// pipeline stage reads and writes a run state per message, and Foundation's coders were
/// most of a worker's CPU.
extension RunState {
    /// Reads the stored form; `workflow` supplies the definition when the form has none.
    public init(json: JSONValue, workflow supplied: WorkflowDefinition?) throws {
        let fields = try JSONFields(json)
        let version = try fields.int("version")
        guard version == RunState.storageVersion else {
            throw JSONFields.Failure(path: "version", reason: "run state version \(version) is not supported; expected \(RunState.storageVersion)")
        }
        if let definition = fields.value("workflow") {
            workflow = try CodableBridge.decode(WorkflowDefinition.self, from: definition, path: "workflow")
        } else if let supplied {
            workflow = supplied
        } else {
            throw JSONFields.Failure(path: "workflow", reason: "the stored run has no workflow; supply it")
        }
        trigger = try fields.read("trigger")
        context = try fields.read("context")
        status = try fields.raw("status")
        started = try fields.bool("started")
        cursor = try fields.optionalRead("cursor")
        generation = try fields.int("generation")
        pendingTimer = try fields.optionalRead("pendingTimer")
        steps = try fields.readArray("steps")
        openWindow = try fields.optionalInt("openWindow")
        planSent = try fields.bool("planSent")
        cancellation = try fields.optionalRead("cancelled")
        failure = try fields.value("failure").map { try CodableBridge.decode(EngineError.self, from: $0, path: "failure") }
        revision = try fields.int("revision")
        if let openWindow, !steps.indices.contains(openWindow) {
            throw JSONFields.Failure(path: "openWindow", reason: "is out of range")
        }
    }

    /// Writes the stored form, without the workflow snapshot when `includingWorkflow` is false.
    public func write(to writer: inout JSONWriter, includingWorkflow: Bool) {
        writer.beginObject()
        writer.key(literal: "version"); writer.int(Int64(RunState.storageVersion))
        if includingWorkflow { writer.key(literal: "workflow"); writer.write(CodableBridge.value(of: workflow)) }
        writer.key(literal: "trigger"); trigger.write(to: &writer)
        writer.key(literal: "context"); context.write(to: &writer)
        writer.key(literal: "status"); writer.string(status.rawValue)
        writer.key(literal: "started"); writer.bool(started)
        if let cursor { writer.key(literal: "cursor"); writer.string(cursor.description) }
        writer.key(literal: "generation"); writer.int(Int64(generation))
        if let pendingTimer { writer.key(literal: "pendingTimer"); pendingTimer.write(to: &writer) }
        writer.key(literal: "steps")
        writer.beginArray()
        for step in steps { step.write(to: &writer) }
        writer.endArray()
        if let openWindow { writer.key(literal: "openWindow"); writer.int(Int64(openWindow)) }
        writer.key(literal: "planSent"); writer.bool(planSent)
        if let cancellation { writer.key(literal: "cancelled"); cancellation.write(to: &writer) }
        if let failure { writer.key(literal: "failure"); writer.write(CodableBridge.value(of: failure)) }
        writer.key(literal: "revision"); writer.int(Int64(revision))
        writer.endObject()
    }
}

extension RunContext: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(runId: try fields.string("runId"), dryRun: try fields.bool("dryRun"), hasSubscriber: try fields.bool("hasSubscriber"),
                  subscriberTimeZone: try fields.optionalString("subscriberTimeZone"),
                  tenantDefaultTimeZone: try fields.optionalString("tenantDefaultTimeZone"),
                  quietHours: try fields.optionalRead("quietHours"), immediateLocalLead: try fields.int("immediateLocalLead"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "runId"); writer.string(runId)
        writer.key(literal: "dryRun"); writer.bool(dryRun)
        writer.key(literal: "hasSubscriber"); writer.bool(hasSubscriber)
        if let subscriberTimeZone { writer.key(literal: "subscriberTimeZone"); writer.string(subscriberTimeZone) }
        if let tenantDefaultTimeZone { writer.key(literal: "tenantDefaultTimeZone"); writer.string(tenantDefaultTimeZone) }
        if let quietHours { writer.key(literal: "quietHours"); quietHours.write(to: &writer) }
        writer.key(literal: "immediateLocalLead"); writer.int(Int64(immediateLocalLead))
        writer.endObject()
    }
}

extension QuietHours: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        func time(_ key: String) throws -> WallClockTime {
            let text = try fields.string(key)
            guard let time = WallClockTime(parsing: text) else { throw JSONFields.Failure(path: path + "." + key, reason: "expected \(WallClockTime.textForm), got \"\(text)\"") }
            return time
        }
        guard let window = QuietHours(start: try time("start"), end: try time("end")) else {
            throw JSONFields.Failure(path: path, reason: "quiet hours start and end must differ")
        }
        self = window
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "start"); writer.string(start.description)
        writer.key(literal: "end"); writer.string(end.description)
        writer.endObject()
    }
}

extension StepPath: JSONReadable {
    public init(json: JSONValue, path: String) throws {
        guard case .string(let text) = json, let parsed = StepPath(parsing: text) else {
            throw JSONFields.Failure(path: path, reason: "expected a step path such as steps[1], got \(json.typeDescription)")
        }
        self = parsed
    }
}

extension RunTimer: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(runId: try fields.string("runId"), generation: try fields.int("generation"), stepPath: try fields.read("stepPath"),
                  purpose: try fields.raw("purpose"), at: try fields.instant("at"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "runId"); writer.string(runId)
        writer.key(literal: "generation"); writer.int(Int64(generation))
        writer.key(literal: "stepPath"); writer.string(stepPath.description)
        writer.key(literal: "purpose"); writer.string(purpose.rawValue)
        writer.key(literal: "at"); writer.string(RFC3339.format(at))
        writer.endObject()
    }
}

extension StepRecord: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(name: try fields.string("name"), path: try fields.read("path"), status: try fields.raw("status"),
                  startedAt: try fields.instant("startedAt"), finishedAt: try fields.optionalInstant("finishedAt"),
                  dueAt: try fields.optionalInstant("dueAt"), local: try fields.optionalRead("local"))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "name"); writer.string(name)
        writer.key(literal: "path"); writer.string(path.description)
        writer.key(literal: "status"); writer.string(status.rawValue)
        writer.key(literal: "startedAt"); writer.string(RFC3339.format(startedAt))
        writer.key(literal: "finishedAt"); writer.optionalString(finishedAt.map(RFC3339.format))
        writer.key(literal: "dueAt"); writer.optionalString(dueAt.map(RFC3339.format))
        if let local { writer.key(literal: "local"); local.write(to: &writer) }
        writer.endObject()
    }
}

extension LocalWindowRecord: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        self.init(plan: try fields.read("plan"), moment: try fields.instant("moment"),
                  shiftedByQuietHours: try fields.bool("shiftedByQuietHours"), planSent: try fields.bool("planSent"))
        planSentTo = try fields.int("planSentTo")
        acknowledged = try fields.bool("acknowledged")
        acknowledgedAt = try fields.optionalInstant("acknowledgedAt")
        releaseReason = try fields.optionalString("releaseReason")  // absent in states written before releases
        fallback = try fields.optionalRead("fallback")
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "plan"); plan.write(to: &writer)
        writer.key(literal: "moment"); writer.string(RFC3339.format(moment))
        writer.key(literal: "shiftedByQuietHours"); writer.bool(shiftedByQuietHours)
        writer.key(literal: "planSent"); writer.bool(planSent)
        writer.key(literal: "planSentTo"); writer.int(Int64(planSentTo))
        writer.key(literal: "acknowledged"); writer.bool(acknowledged)
        writer.key(literal: "acknowledgedAt"); writer.optionalString(acknowledgedAt.map(RFC3339.format))
        if let releaseReason { writer.key(literal: "releaseReason"); writer.string(releaseReason) }
        if let fallback { writer.key(literal: "fallback"); fallback.write(to: &writer) }
        writer.endObject()
    }
}
