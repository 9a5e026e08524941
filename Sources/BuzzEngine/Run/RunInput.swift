import BuzzKitWire

/// Something that happened to a run; feed it to ``RunState/handle(_:now:)``.
public enum RunInput: Sendable, Hashable {
    /// Begin executing the steps (once; a repeat is ignored).
    case start
    /// A timer the run scheduled is due. Stale timers are ignored.
    case timerFired(RunTimer)
    /// An event of the run's subscriber. It cancels the run when it matches a `cancelOn`
    /// rule (its `where` evaluated with the trigger event); a `$local.scheduled` event is
    /// also read as an acknowledgment (properties `localId`, `messageId`). A `$local.released`
    /// is not read here: one device's release says nothing about the subscriber's other
    /// devices (see ``released(localId:messageId:reason:)``). Events of other subscribers are
    /// ignored.
    case event(BuzzEvent)
    /// A device of the subscriber holds a plan it acknowledged (`$local.scheduled`). Counts
    /// per subscriber; a repeat or a late one is recorded once and never sends anything.
    /// `messageId`, when given, must match the plan's. After a ``released(localId:messageId:reason:)``
    /// it counts again (a device put the plan back and acknowledged it anew).
    case acknowledged(localId: String, messageId: String?)
    /// No device of the subscriber holds the plan any more, though one acknowledged it: each
    /// released it (`$local.released`) or stopped counting (logged out, refused by APNs).
    /// Until a later ``acknowledged(localId:messageId:)`` the window counts as not
    /// acknowledged, and if it stays so until the moment the fallback goes out with `reason`
    /// (for example ``RunSummary/LocalWindow/Fallback/releasedByEveryDevice``). Ignored once
    /// the window is decided or the run ended, and when `messageId` (if given) is not the plan's.
    ///
    /// The engine keeps no devices: the caller decides, from every device's latest word on the
    /// plan, whether any still holds it, and feeds one of the two inputs.
    case released(localId: String, messageId: String?, reason: String)
    /// The plan went to `deviceCount` devices (report the total; the run keeps the largest
    /// report, so redelivery is harmless).
    case planDelivered(localId: String, deviceCount: Int)
    /// `POST /v1/runs/{id}/cancel`.
    case cancel
}
