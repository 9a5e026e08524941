import Foundation

/// A claimed timer row that names its local window (``OutboxMessage/window``): what
/// ``OutboxStore/relayDue(limit:settle:publish:)`` hands the scheduler's settling step, inside
/// the claim's transaction.
public struct DueWindow: Sendable, Equatable {
    /// The outbox row: not published when the window is settled.
    public var rowId: Int64
    public var window: OutboxMessage.Window

    public init(rowId: Int64, window: OutboxMessage.Window) { (self.rowId, self.window) = (rowId, window) }
}
