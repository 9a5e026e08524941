import Foundation

/// A local window decided "scheduled on device" by the scheduler at its moment, from the
/// acknowledgments alone (``WindowSettlement``), that has not reached its run yet: a row of
/// `window_decisions`. Stages that lock the run fold it in first (``PendingFacts``), the run
/// summary derives the decided window from it, and the ``WindowCompleter`` writes it into the
/// run shortly after.
public struct WindowDecision: Sendable, Equatable {
    public var runId: UUID
    /// `<runId>/<stepName>`.
    public var localId: String
    /// When the scheduler decided (server clock, at or just after the moment).
    public var decidedAt: Date
    /// When the acknowledgment that counted was recorded (the summary's `acknowledgedAt`).
    public var acknowledgedAt: Date

    public init(runId: UUID, localId: String, decidedAt: Date, acknowledgedAt: Date) {
        self.runId = runId
        self.localId = localId
        self.decidedAt = decidedAt
        self.acknowledgedAt = acknowledgedAt
    }
}
