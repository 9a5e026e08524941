import BuzzKitWire
import Foundation

/// What the SDK remembers about a plan it scheduled, persisted in the ``PlanBook``.
public struct PlanRecord: Sendable, Hashable, Codable {
    /// Where the plan's notification is.
    public enum State: String, Sendable, Hashable, Codable {
        /// A pending request in the notification center.
        case scheduled
        /// Acknowledged, then pushed out of the notification center by sooner plans (the
        /// 64-request limit). It is put back when a slot frees up before it is due; if none
        /// does, it is lost (``ClientActivity.LossReason/evictedAfterAcknowledgment``).
        case parked
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

    /// A freshly scheduled plan whose acknowledgment is `acknowledgmentEventId`.
    init(plan: LocalPlan, acknowledgmentEventId: String, receivedAt: Date) {
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
