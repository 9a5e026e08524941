import BuzzServerCore
import Foundation

/// The outbox and timer port, outside the pipeline's transactions (rows are written inside
/// them with ``StoreTransaction/enqueue(_:runIds:now:)``): what the fast path and the
/// scheduler need to move rows to the broker. ``PostgresOutbox`` is the real one;
/// ``InMemoryOutbox`` works on an ``InMemoryStore``.
public protocol OutboxStore: Sendable {
    /// Deletes rows the fast path has published (confirmed).
    func deleteRelayed(_ ids: [Int64]) throws
    /// In one transaction: takes up to `limit` rows due now, in due order (rows another
    /// scheduler holds are skipped), settles the local windows among them that a device holds
    /// (``WindowSettlement``: recorded, not published), passes the rest to `publish`, with how
    /// late each claimed row is in seconds, and deletes them all once `publish` returns. A
    /// throw from `publish` keeps them (and the decisions roll back).
    func relayDue(limit: Int, publish: (_ messages: [OutboxMessage], _ lateness: [Double]) throws -> Void) throws -> RelayRound
    /// Seconds until the next row is due (0 or less when one is due now), nil when empty.
    func secondsUntilNextDue() throws -> Double?
    /// Reclaims the space of deleted rows, so claims stop walking their index entries
    /// (PostgreSQL: `VACUUM`, skipped while another vacuum holds the table).
    func vacuum() throws
}
