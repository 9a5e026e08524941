import BuzzKitWire
import Foundation

/// What a run knows about one step it has begun.
public struct StepRecord: Sendable, Hashable, Codable {
    /// The step's name.
    public let name: String
    /// Where the step sits in the definition.
    public let path: StepPath
    /// The step's status.
    public internal(set) var status: StepStatus
    /// When it began.
    public let startedAt: Date
    /// When it finished.
    public internal(set) var finishedAt: Date?
    /// For waits, delays and quiet-hours deferrals: when the step is due.
    public internal(set) var dueAt: Date?
    /// For local sends: the window.
    public internal(set) var local: LocalWindowRecord?

    init(name: String, path: StepPath, status: StepStatus, startedAt: Date, finishedAt: Date? = nil,
         dueAt: Date? = nil, local: LocalWindowRecord? = nil) {
        self.name = name
        self.path = path
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.dueAt = dueAt
        self.local = local
    }

    /// The summary's step.
    public var summary: RunSummary.Step {
        RunSummary.Step(name: name, status: status, startedAt: startedAt, finishedAt: finishedAt, local: local?.summary)
    }

    /// Whether the step is still in progress.
    public var isOpen: Bool { status == .waiting || status == .planned }

    private enum CodingKeys: String, CodingKey { case name, path, status, startedAt, finishedAt, dueAt, local }

    /// Decodes the stored form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        path = try container.decode(StepPath.self, forKey: .path)
        status = try container.decode(StepStatus.self, forKey: .status)
        startedAt = try container.decodeInstant(forKey: .startedAt)
        finishedAt = try container.decodeInstantIfPresent(forKey: .finishedAt)
        dueAt = try container.decodeInstantIfPresent(forKey: .dueAt)
        local = try container.decodeIfPresent(LocalWindowRecord.self, forKey: .local)
    }

    /// Encodes the stored form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(path, forKey: .path)
        try container.encode(status, forKey: .status)
        try container.encodeInstant(startedAt, forKey: .startedAt)
        try container.encodeInstantOrNull(finishedAt, forKey: .finishedAt)
        try container.encodeInstantOrNull(dueAt, forKey: .dueAt)
        try container.encodeIfPresent(local, forKey: .local)
    }
}
