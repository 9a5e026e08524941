import BuzzKitWire
import Foundation

/// The stored form of a run, read and written by hand: the same JSON as the `Codable`
/// conformance (tests compare the two on every kind of state), at a fraction of the cost. A
/// pipeline stage reads and writes a run state per message, and Foundation's coders were
/// most of a worker's CPU.
extension RunState {
    /// Reads either stored form (``RunStateForm``); `workflow` supplies the definition when the
    /// form has none.
    public init(json: JSONValue, workflow supplied: WorkflowDefinition?) throws {
        let fields = try JSONFields(json)
        if fields.value("v") != nil {
            try self.init(compact: fields, workflow: supplied)
        } else {
            try self.init(verbose: fields, workflow: supplied)
        }
    }

    /// Reads the verbose form (`fields` holds `"version"`).
    init(verbose fields: JSONFields, workflow supplied: WorkflowDefinition?) throws {
        let version = try fields.int("version")
        guard version == RunState.storageVersion else { throw RunState.unsupported(version) }
        workflow = try RunState.workflow(in: fields, supplied: supplied)
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
        try checkOpenWindow()
    }

    static func unsupported(_ version: Int, key: String = "version") -> JSONFields.Failure {
        JSONFields.Failure(path: key, reason: "run state version \(version) is not supported; this release reads \"version\": "
                           + "\(RunState.storageVersion) (verbose) and \"v\": \(RunState.compactStorageVersion) (compact)")
    }

    /// The stored definition, or `supplied` when the form has none.
    static func workflow(in fields: JSONFields, supplied: WorkflowDefinition?) throws -> WorkflowDefinition {
        if let definition = fields.value("workflow") { return try CodableBridge.decode(WorkflowDefinition.self, from: definition, path: "workflow") }
        if let supplied { return supplied }
        throw JSONFields.Failure(path: "workflow", reason: "the stored run has no workflow; supply it")
    }

    func checkOpenWindow() throws {
        if let openWindow, !steps.indices.contains(openWindow) {
            throw JSONFields.Failure(path: "openWindow", reason: "is out of range")
        }
    }

    /// Writes the stored form `form`, without the workflow snapshot when `includingWorkflow` is false.
    public func write(to writer: inout JSONWriter, includingWorkflow: Bool, form: RunStateForm = .verbose) {
        guard form == .verbose else { return writeCompact(to: &writer, includingWorkflow: includingWorkflow) }
        writer.beginObject()
        writer.member("version", RunState.storageVersion)
        if includingWorkflow { writer.member("workflow", CodableBridge.value(of: workflow)) }
        writer.member("trigger", trigger)
        writer.member("context", context)
        writer.member("status", status.rawValue)
        writer.member("started", started)
        if let cursor { writer.member("cursor", cursor.description) }
        writer.member("generation", generation)
        if let pendingTimer { writer.member("pendingTimer", pendingTimer) }
        writer.key(literal: "steps")
        writer.beginArray()
        for step in steps { step.write(to: &writer) }
        writer.endArray()
        if let openWindow { writer.member("openWindow", openWindow) }
        writer.member("planSent", planSent)
        if let cancellation { writer.member("cancelled", cancellation) }
        if let failure { writer.member("failure", CodableBridge.value(of: failure)) }
        writer.member("revision", revision)
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
        writer.member("runId", runId)
        writer.member("dryRun", dryRun)
        writer.member("hasSubscriber", hasSubscriber)
        if let subscriberTimeZone { writer.member("subscriberTimeZone", subscriberTimeZone) }
        if let tenantDefaultTimeZone { writer.member("tenantDefaultTimeZone", tenantDefaultTimeZone) }
        if let quietHours { writer.member("quietHours", quietHours) }
        writer.member("immediateLocalLead", immediateLocalLead)
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
        writer.member("start", start.description)
        writer.member("end", end.description)
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
        writer.member("runId", runId)
        writer.member("generation", generation)
        writer.member("stepPath", stepPath.description)
        writer.member("purpose", purpose.rawValue)
        writer.member("at", instant: at)
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
        writer.member("name", name)
        writer.member("path", path.description)
        writer.member("status", status.rawValue)
        writer.member("startedAt", instant: startedAt)
        // Absent instants are left out (readers, older ones too, take a missing key as absent).
        if let finishedAt { writer.member("finishedAt", instant: finishedAt) }
        if let dueAt { writer.member("dueAt", instant: dueAt) }
        if let local { writer.member("local", local) }
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
        writer.member("plan", plan)
        writer.member("moment", instant: moment)
        writer.member("shiftedByQuietHours", shiftedByQuietHours)
        writer.member("planSent", planSent)
        writer.member("planSentTo", planSentTo)
        writer.member("acknowledged", acknowledged)
        if let acknowledgedAt { writer.member("acknowledgedAt", instant: acknowledgedAt) }
        if let releaseReason { writer.member("releaseReason", releaseReason) }
        if let fallback { writer.member("fallback", fallback) }
        writer.endObject()
    }
}
