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
    /// scheduler holds are skipped), hands the rows that name their local window to `settle`
    /// (with the transaction and the time of the claim), which returns the rows it settled
    /// (the scheduler's ``WindowDecider``: a device holds the plan, the decision recorded, nothing
    /// published), passes the rest to `publish`, with how late each claimed row is in seconds,
    /// and deletes them all once `publish` returns. A throw from `settle` or `publish` keeps
    /// them (and the decisions roll back).
    func relayDue(limit: Int, settle: (_ windows: [DueWindow], _ tx: any StoreTransaction, _ now: Date) throws -> Set<Int64>,
                  publish: (_ messages: [OutboxMessage], _ lateness: [Double]) throws -> Void) throws -> RelayRound
    /// Seconds until the next row is due (0 or less when one is due now), nil when empty.
    func secondsUntilNextDue() throws -> Double?
    /// Reclaims the space of deleted rows, so claims stop walking their index entries
    /// (PostgreSQL: `VACUUM`, skipped while another vacuum holds the table).
    func vacuum() throws
}
