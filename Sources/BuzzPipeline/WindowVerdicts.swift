import BuzzServerCore
import BuzzStore
import Foundation

/// Orders a window's decision at its moment against acknowledgments arriving meanwhile
/// (issue 45, race 3).
///
/// A phone's last-second acknowledgment can reach the API just as `fallback-check` decides its
/// window. Before, the API recorded it and answered `202` whatever the decision had been: the
/// phone kept its local copy, the fallback had gone out, and the person saw the reminder
/// twice. Now the decision locks each window's plan before it reads the acknowledgments and
/// marks the windows whose fallback it sends; recording an acknowledgment locks the plan too
/// (``StoreTransaction/recordAcknowledgments(tenantId:_:at:)``). So an acknowledgment either
/// counts (recorded before the decision read it) or is late: not recorded, and named in the
/// API's answer (``AcceptedEvents/late``), for the SDK to withdraw its copy.
enum WindowVerdicts {
    /// Locks the windows' plans (tenant, local id) for their decision, per tenant.
    static func lock(_ windows: [(tenantId: String, localId: String)], tx: any StoreTransaction) throws {
        for (tenantId, group) in Dictionary(grouping: windows, by: \.tenantId).sorted(by: { $0.key < $1.key }) {
            try tx.lockWindowsForDecision(tenantId: tenantId, localIds: group.map(\.localId))
        }
    }

    /// Records that these windows' fallbacks were decided, per tenant.
    static func markFallbacks(_ windows: [(tenantId: String, localId: String)], tx: any StoreTransaction, now: Date) throws {
        for (tenantId, group) in Dictionary(grouping: windows, by: \.tenantId) {
            try tx.markFallbacksDecided(tenantId: tenantId, localIds: group.map(\.localId), at: now)
        }
    }
}
