import BuzzKitWire

/// Something that happened to a run; feed it to ``RunState/handle(_:now:)``.
public enum RunInput: Sendable, Hashable {
    /// Begin executing the steps (once; a repeat is ignored).
    case start
    /// A timer the run scheduled is due. Stale timers are ignored.
    case timerFired(RunTimer)
    /// An event of the run's subscriber. It cancels the run when it matches a `cancelOn`
    /// rule (its `where` evaluated with the trigger event); a `$local.scheduled` event is
    /// also read as an acknowledgment (properties `localId`, `messageId`). Events of other
    /// subscribers are ignored.
    case event(BuzzEvent)
    /// A device of the subscriber acknowledged a plan (`$local.scheduled`). Counts per
    /// subscriber; a repeat or a late one is recorded once and never sends anything.
    /// `messageId`, when given, must match the plan's.
    case acknowledged(localId: String, messageId: String?)
    /// The plan went to `deviceCount` devices (report the total; the run keeps the largest
    /// report, so redelivery is harmless).
    case planDelivered(localId: String, deviceCount: Int)
    /// `POST /v1/runs/{id}/cancel`.
    case cancel
}
