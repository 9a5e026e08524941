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

    /// The stored form (``init(json:path:)`` and ``write(to:)`` in `*+JSON.swift`: one mapping for Codable too).
    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }
}
