import BuzzKitWire
import Foundation

/// Stored form of a run (`{"version": 1, …}`), independent of any encoder's date or key
/// strategy: instants are RFC 3339 strings with millisecond precision, the definition is
/// its own JSON (validated again on decode), step paths are their text.
extension RunState: Codable {
    /// The stored form's version.
    public static let storageVersion = 1

    /// Encoder `userInfo` key: `true` leaves the workflow snapshot out of the stored form,
    /// for stores that keep definitions by key and version already.
    public static let omitWorkflowKey = CodingUserInfoKey(rawValue: "buzzkit.runState.omitWorkflow")!
    /// Decoder `userInfo` key: the ``WorkflowDefinition`` to use when the stored form has none.
    public static let workflowKey = CodingUserInfoKey(rawValue: "buzzkit.runState.workflow")!

    private enum CodingKeys: String, CodingKey {
        case version, workflow, trigger, context, status, started, cursor, generation, pendingTimer, steps
        case openWindow, planSent, cancelled, failure, revision
    }

    /// Decodes the stored form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == RunState.storageVersion else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container,
                                                   debugDescription: "run state version \(version) is not supported; expected \(RunState.storageVersion)")
        }
        if container.contains(.workflow) {
            workflow = try container.decode(WorkflowDefinition.self, forKey: .workflow)
        } else if let supplied = decoder.userInfo[RunState.workflowKey] as? WorkflowDefinition {
            workflow = supplied
        } else {
            throw DecodingError.keyNotFound(CodingKeys.workflow, .init(codingPath: decoder.codingPath,
                debugDescription: "the stored run has no workflow; supply it with RunState.workflowKey"))
        }
        trigger = try container.decode(BuzzEvent.self, forKey: .trigger)
        context = try container.decode(RunContext.self, forKey: .context)
        status = try container.decode(RunStatus.self, forKey: .status)
        started = try container.decode(Bool.self, forKey: .started)
        cursor = try container.decodeIfPresent(StepPath.self, forKey: .cursor)
        generation = try container.decode(Int.self, forKey: .generation)
        pendingTimer = try container.decodeIfPresent(RunTimer.self, forKey: .pendingTimer)
        steps = try container.decode([StepRecord].self, forKey: .steps)
        openWindow = try container.decodeIfPresent(Int.self, forKey: .openWindow)
        planSent = try container.decode(Bool.self, forKey: .planSent)
        cancellation = try container.decodeIfPresent(RunSummary.Cancellation.self, forKey: .cancelled)
        failure = try container.decodeIfPresent(EngineError.self, forKey: .failure)
        revision = try container.decode(Int.self, forKey: .revision)
        if let openWindow, !steps.indices.contains(openWindow) {
            throw DecodingError.dataCorruptedError(forKey: .openWindow, in: container, debugDescription: "openWindow is out of range")
        }
    }

    /// Encodes the stored form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(RunState.storageVersion, forKey: .version)
        if encoder.userInfo[RunState.omitWorkflowKey] as? Bool != true {
            try container.encode(workflow, forKey: .workflow)
        }
        try container.encode(trigger, forKey: .trigger)
        try container.encode(context, forKey: .context)
        try container.encode(status, forKey: .status)
        try container.encode(started, forKey: .started)
        try container.encodeIfPresent(cursor, forKey: .cursor)
        try container.encode(generation, forKey: .generation)
        try container.encodeIfPresent(pendingTimer, forKey: .pendingTimer)
        try container.encode(steps, forKey: .steps)
        try container.encodeIfPresent(openWindow, forKey: .openWindow)
        try container.encode(planSent, forKey: .planSent)
        try container.encodeIfPresent(cancellation, forKey: .cancelled)
        try container.encodeIfPresent(failure, forKey: .failure)
        try container.encode(revision, forKey: .revision)
    }
}
