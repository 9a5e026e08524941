import Foundation

/// A claimed timer row that names its local window (``OutboxMessage/window``), with what the
/// devices have said of the window's plan: what ``OutboxStore/relayDue(limit:settle:publish:)``
/// hands the scheduler's settling step, inside the claim's transaction.
public struct DueWindow: Sendable, Equatable {
    /// The outbox row: not published when the window is settled.
    public var rowId: Int64
    public var window: OutboxMessage.Window
    /// The acknowledgments recorded for the window's plan as the claim read them, each with
    /// whether its device still counts (what ``StoreTransaction/acknowledgments(tenantId:windows:)``
    /// reads for the window); empty when no device said anything.
    public var holdings: [PlanHolding]

    public init(rowId: Int64, window: OutboxMessage.Window, holdings: [PlanHolding] = []) {
        (self.rowId, self.window, self.holdings) = (rowId, window, holdings)
    }
}
