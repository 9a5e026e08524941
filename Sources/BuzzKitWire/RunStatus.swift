/// A run's status in the run summary.
public enum RunStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Created or executing; not yet waiting on a timer.
    case running
    /// Waiting on a timer (a wait, a delay, a local window or quiet hours).
    case waiting
    /// Every step has finished.
    case completed
    /// Cancelled by an event or through the API.
    case cancelled
    /// Stopped by an error (for example an `at` template that does not resolve).
    case failed

    /// Whether the run can no longer change (completed, cancelled or failed).
    public var isFinal: Bool {
        switch self {
        case .running, .waiting: return false
        case .completed, .cancelled, .failed: return true
        }
    }
}
