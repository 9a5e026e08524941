import BuzzKitWire
import Foundation

/// What the SDK remembers about a plan it scheduled, persisted in the ``PlanBook``.
public struct PlanRecord: Sendable, Hashable, Codable {
    /// Where the plan's notification is.
    public enum State: String, Sendable, Hashable, Codable {
        /// A pending request in the notification center.
        case scheduled
        /// Acknowledged, then out of the notification center: pushed out by sooner plans (the
        /// 64-request limit), or held back while its acknowledgment was unconfirmed and
        /// confirmed since. Released (`$local.released`), so the server's fallback covers it;
        /// put back (and acknowledged again) when a slot frees up before it is due.
        case parked
        /// Scheduled here, then taken out of the notification center before the app was
        /// suspended because its acknowledgment had not reached the server (the server will
        /// send its fallback, and a suspended app cannot withdraw a local copy in time). Its
        /// acknowledgment stays queued, unsent while the plan is held: when the app next runs,
        /// the plan goes back into the center (a free slot permitting) and then its
        /// acknowledgment goes out; at its deadline it is withdrawn.
        case held
        /// Taken out of the notification center at its last call (``BuzzKitClient/lastCall``
        /// before it fires) because its acknowledgment was still on its way: the server may
        /// have decided the fallback before the acknowledgment arrived. When the answer comes,
        /// the plan is shown at once if the acknowledgment counted (late by the answer's
        /// delay, never twice), and forgotten if the server says it was late (the fallback is
        /// the one shown).
        case awaitingAnswer
    }

    /// The plan as received.
    public internal(set) var plan: LocalPlan
    /// Scheduled or parked.
    public internal(set) var state: State
    /// The client id of its `$local.scheduled` event.
    public internal(set) var acknowledgmentEventId: String?
    /// Whether the server answered 2xx to a batch holding the acknowledgment.
    public internal(set) var acknowledgmentConfirmed: Bool
    /// Whether a send of the acknowledgment failed in a way that may have reached the server
    /// (timeout, connection lost, 5xx).
    public internal(set) var acknowledgmentUncertain: Bool
    /// When the plan arrived.
    public internal(set) var receivedAt: Date
    /// When the phone last told the server it let go of the plan (`$local.released`); `nil`
    /// while the server may count on it.
    public internal(set) var releasedAt: Date?
    /// The device's zone when the plan arrived (the zone its moment was planned in, unless
    /// the phone was elsewhere than the subscriber's profile says).
    public internal(set) var receivedZone: TimeZone?

    /// A freshly scheduled plan whose acknowledgment is `acknowledgmentEventId`.
    init(plan: LocalPlan, acknowledgmentEventId: String, receivedAt: Date, receivedZone: TimeZone? = nil) {
        self.receivedZone = receivedZone
        self.plan = plan
        self.state = .scheduled
        self.acknowledgmentEventId = acknowledgmentEventId
        self.acknowledgmentConfirmed = false
        self.acknowledgmentUncertain = false
        self.receivedAt = receivedAt
    }

    /// The local id.
    public var localId: String { plan.id }

    /// The instant the plan fires at in `zone`.
    public func fireInstant(in zone: TimeZone) -> Date {
        plan.fireAt.instant(in: zone)
    }
}
