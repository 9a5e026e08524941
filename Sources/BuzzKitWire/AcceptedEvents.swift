import Foundation

/// The answer to `POST /v1/events` (`202`): `{"accepted": n}`, with two lists of local ids
/// when some of the batch's acknowledgments (`$local.scheduled`) were not counted:
/// - `"late"`: they came after their window's fallback was decided, so the phone must not
///   show its local copy: the fallback is the one shown;
/// - `"cancelled"`: their plan's run was cancelled, and the cancel push may never reach the
///   phone (APNs keeps one push per app for an offline phone, not always the newest), so the
///   phone drops the plan as if the cancel had come.
///
/// Additive fields: clients that read only `accepted` keep working. Repeats are answered
/// alike (an acknowledgment recorded before the decision is never late, however often it is
/// sent again; one that came after is late every time).
public struct AcceptedEvents: Sendable, Hashable, Codable {
    /// How many events were accepted.
    public var accepted: Int
    /// The local ids of acknowledgments not counted because their window's fallback was
    /// decided first; absent when none.
    public var late: [String]?
    /// The local ids of acknowledgments not counted because their plan's run was cancelled;
    /// absent when none.
    public var cancelled: [String]?

    public init(accepted: Int, late: [String]? = nil, cancelled: [String]? = nil) {
        self.accepted = accepted
        self.late = late
        self.cancelled = cancelled
    }
}
