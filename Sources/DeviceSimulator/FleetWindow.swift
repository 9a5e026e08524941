import Foundation

/// One notification the fleet expects a person to see, or not to see.
public struct FleetWindow: Sendable, Codable {
    /// What the person must see.
    public enum Expectation: String, Sendable, Codable {
        /// Shown exactly once, at its moment (locally or by the fallback).
        case once
        /// Never shown: cancelled on the phone or by the server while the phone could hear of
        /// it, or planned for someone who signed out of the only phone.
        case never
        /// Cancelled by the server in a way that could not reach the phone before the moment
        /// (the phone was offline through it, or the backend's cancel itself only got in at
        /// the last moment): the local copy may fire and nobody could have prevented it. Or
        /// planned for someone who signed out when the API could only learn of it at the last
        /// moment: their fallback may still reach the phone. Or completed in the app while the
        /// API refused every event until the moment (an outage): the fallback of a plan whose
        /// acknowledgment was refused too still comes. Counted apart, never a violation.
        case unpreventable
        /// Not judged in this run: the backend could only get the workout in too late for the
        /// phone to act before the run ends (a traveller's notification is then the server's
        /// fallback at its own moment, 15 minutes on), or the person signed in when the API
        /// could only register the phone for them at the last moment, or the API refused a
        /// phone's release of a plan iOS dropped until the moment (an outage throughout: the
        /// server counted on the plan). Counted apart.
        case notJudged
    }

    /// The workout it nudges about (its id is in the notification's body).
    public var workoutId: String
    public var subscriberId: String
    public var behaviour: Behaviour
    /// When it should be shown: the planned moment, or for a traveller the planned wall clock
    /// where the phone is at that time.
    public var moment: Date
    public var expectation: Expectation
    /// Why it must not be shown (for the report's sentence): "cancel" or "logout".
    public var neverBecause: String?
    /// A button's events the API refused, or left unanswered, in an outage until iOS suspended
    /// the app: still queued, they wait on the phone for its next run, so the server cannot show
    /// them yet.
    public var eventsHeldByOutage: Bool?
    /// The notification shown had no buttons to choose: a fallback for a plan that never
    /// reached the phone (held up by an outage, say), whose buttons nothing registered there.
    /// The person's choice is judged apart (none was possible).
    public var buttonsNotShown: Bool?
    /// The notification was shown only after the person had stopped waiting for it (an outage
    /// held it up past the moment and the fleet's settle time), so no button was chosen: the
    /// person's choice is judged apart (none was made); the lateness is in the table.
    public var shownAfterThePersonStoppedWaiting: Bool?

    /// Whether the person could choose a button on it (shown with buttons, while they waited):
    /// the windows whose snooze or Done is judged.
    var buttonCouldBeChosen: Bool { buttonsNotShown != true && shownAfterThePersonStoppedWaiting != true }

    /// The workout id in a notification body "… (w-…)." (the fleet's workflow puts it there).
    static func workoutId(inBody body: String) -> String? {
        guard let open = body.lastIndex(of: "("), let close = body.lastIndex(of: ")"), open < close else { return nil }
        return String(body[body.index(after: open)..<close])
    }
}
