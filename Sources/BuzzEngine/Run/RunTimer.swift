import BuzzKitWire
import Foundation

/// A timer a run asked for. Persist it (for example in a `timers` table keyed by ``id``)
/// and feed it back with ``RunInput/timerFired(_:)`` once `at` has passed.
///
/// A run has at most one pending timer. On firing, the run accepts the timer only when it
/// is still the pending one: same ``generation``, ``stepPath`` and ``purpose`` (``at`` is
/// not compared, so a store that rounds instants does no harm). A redelivered, duplicated
/// or superseded timer is ignored and yields no actions.
public struct RunTimer: Sendable, Hashable, Codable {
    /// Why a run scheduled a timer. A runner may route purposes to different queues (for
    /// example `localWindowDue` to `fallback-check`).
    public enum Purpose: String, Sendable, Hashable, Codable, CaseIterable {
        /// A `waitUntil` (not a local window) or `delay` ends.
        case waitEnds = "wait-ends"
        /// A local window's moment: decide "scheduled on device" or the fallback push.
        case localWindowDue = "fallback-check"
        /// A push send reached inside quiet hours goes out at the window's end.
        case quietHoursEnd = "quiet-hours-end"
    }

    /// The run.
    public let runId: String
    /// The run's timer sequence number; it grows with every timer the run schedules.
    public let generation: Int
    /// The step the run is waiting in.
    public let stepPath: StepPath
    /// What happens when it fires.
    public let purpose: RunTimer.Purpose
    /// When it is due.
    public let at: Date

    /// A timer from its parts.
    public init(runId: String, generation: Int, stepPath: StepPath, purpose: RunTimer.Purpose, at: Date) {
        self.runId = runId
        self.generation = generation
        self.stepPath = stepPath
        self.purpose = purpose
        self.at = at
    }

    /// A unique key: `<runId>#<generation>`.
    public var id: String { "\(runId)#\(generation)" }

    /// Whether two timers are the same request, ignoring `at`.
    public func isSameRequest(as other: RunTimer) -> Bool {
        generation == other.generation && purpose == other.purpose && runId == other.runId && stepPath == other.stepPath
    }

    /// The stored form (``init(json:path:)`` and ``write(to:)`` in `*+JSON.swift`: one mapping for Codable too).
    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }
}
