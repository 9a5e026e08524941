import Foundation

/// The answer to `POST /v1/events` (`202`): `{"accepted": n}`, and `"late"` when some of the
/// batch's acknowledgments (`$local.scheduled`) came after their window's fallback was
/// decided. Those are not counted, so the phone must not show its local copy: the fallback is
/// the one shown.
///
/// An additive field: clients that read only `accepted` keep working. Repeats are answered
/// alike (an acknowledgment recorded before the decision is never late, however often it is
/// sent again; one that came after is late every time).
public struct AcceptedEvents: Sendable, Hashable, Codable {
    /// How many events were accepted.
    public var accepted: Int
    /// The local ids of acknowledgments not counted because their window's fallback was
    /// decided first; absent when none.
    public var late: [String]?

    public init(accepted: Int, late: [String]? = nil) {
        self.accepted = accepted
        self.late = late
    }
}
