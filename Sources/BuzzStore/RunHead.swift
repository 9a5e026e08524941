import BuzzKitWire
import BuzzServerCore
import Foundation

/// A run's row without its state, as ``StoreTransaction/lockRunHeads(_:)`` reads it: enough to
/// tell whether a window the run waits on can still be decided, without decoding the run.
public struct RunHead: Sendable, Equatable {
    public var id: UUID
    public var tenantId: String
    public var subscriberId: String?
    /// The run's status as last written (a decision not yet written into the run, see
    /// ``WindowDecision``, leaves it `waiting`).
    public var status: RunStatus
    /// A cancelling event of the run's subscriber that the run's rules name was accepted and
    /// not yet handled (a pending ``CancelMark``): the run must be loaded to replay it.
    public var cancelPending: Bool

    public init(id: UUID, tenantId: String, subscriberId: String?, status: RunStatus, cancelPending: Bool) {
        self.id = id
        self.tenantId = tenantId
        self.subscriberId = subscriberId
        self.status = status
        self.cancelPending = cancelPending
    }
}
