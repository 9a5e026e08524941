import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation
import PostgresClient

/// `window_decisions` (migrations 0011, 0013, 0025): the windows decided at their moment,
/// kept for their runs' life, and the window completer's queue of runs to file.
extension PostgresStoreTransaction {
    func recordWindowDecisions(_ decisions: [WindowDecision], learntByRuns: Bool) throws -> [WindowDecision] {
        guard !decisions.isEmpty else { return [] }
        let recorded: Set<String> = Set(try db.query("""
            INSERT INTO window_decisions (run_id, local_id, decided_at, acknowledged_at, fallback_reason, filed)
            SELECT r, l, d, NULLIF(a, '')::timestamptz, NULLIF(f, ''), \(learntByRuns)::boolean
            FROM unnest(\(decisions.map(\.runId))::uuid[], \(decisions.map(\.localId))::text[],
                        \(decisions.map(\.decidedAt))::timestamptz[], \(decisions.map { $0.acknowledgedAt?.postgresText ?? "" })::text[],
                        \(decisions.map { $0.fallbackReason ?? "" })::text[]) AS u(r, l, d, a, f)
            ON CONFLICT DO NOTHING
            RETURNING run_id::text || ' ' || local_id AS k
            """).map { try $0.decode("k", as: String.self) })
        var reported: Set<String> = []
        return decisions.filter { decision in
            let key = decision.runId.lowercasedText + " " + decision.localId
            return recorded.contains(key) && reported.insert(key).inserted
        }
    }

    func windowDecisions(runIds: [UUID]) throws -> [UUID: [WindowDecision]] {
        guard !runIds.isEmpty else { return [:] }
        var out: [UUID: [WindowDecision]] = [:]
        // Planned each time, for the reason given at completeDecidedRuns. Only the stages that
        // meet a run off the moment's path ask (a cancel, an event, the summary).
        for row in try db.query(("""
            SELECT run_id, local_id, decided_at, acknowledged_at, fallback_reason FROM window_decisions WHERE run_id = ANY(\(runIds)::uuid[])
            """ as PostgresQuery).plannedEachTime()) {
            let decision = try WindowDecision(row: row)
            out[decision.runId, default: []].append(decision)
        }
        return out
    }

    func completeDecidedRuns(decidedBefore: Date, limit: Int) throws -> (filed: [WindowDecision], toFold: [UUID]) {
        // The queue pop: `due` walks window_decisions_unfiled and skips rows another completer
        // holds; the update finds its rows by ctid. Planned each time: the generic plan of a
        // statement first run while the index was empty reads the whole table for the ctids
        // (0.7 s for 500 of 90,000 rows, against 2 ms by ctid). The runs are locked in id
        // order, as every stage locks them (no deadlock with a batch that holds some). A NULL
        // `filed` is a row from before 0025 (see the migration).
        //
        // The runs are found by their ids alone, as an array (`id = ANY(ARRAY(…))`, the primary
        // key), and whether each is open is read from the row `locked` holds (the latest
        // version: a row locked after a concurrent change is re-read). With `id IN (SELECT …
        // FROM due)` and the status in the condition, the planner walked every open run
        // (runs_open_by_subscriber, which it thought small since the last ANALYZE) and compared
        // each with every row of the batch: 500 × 30,000 at 2,000 windows a second, 324 ms a
        // call and half of PostgreSQL's time in a sustained window (`make bench`).
        var filed: [WindowDecision] = [], toFold: [UUID] = []
        for row in try db.query(Self.completerQuery(decidedBefore: decidedBefore, limit: limit)) {
            let decision = try WindowDecision(row: row)
            if try row.decode("legacy", as: Bool.self) { toFold.append(decision.runId) } else { filed.append(decision) }
        }
        return (filed, toFold)
    }

    /// The completer's statement (``completeDecidedRuns(decidedBefore:limit:)``), planned each
    /// time; its plan is pinned by `QueryPlanIntegrationTests`.
    static func completerQuery(decidedBefore: Date, limit: Int) -> PostgresQuery {
        ("""
        WITH due AS MATERIALIZED (
            SELECT ctid AS c, run_id, local_id, filed IS NULL AS legacy FROM window_decisions
            WHERE filed IS NOT TRUE AND decided_at < \(decidedBefore)
            ORDER BY decided_at LIMIT \(limit) FOR UPDATE SKIP LOCKED),
        taken AS (
            UPDATE window_decisions SET filed = true WHERE ctid = ANY(ARRAY(SELECT c FROM due))
            RETURNING run_id, local_id, decided_at, acknowledged_at, fallback_reason),
        locked AS (
            SELECT id, status IN ('running', 'waiting') AS open FROM runs WHERE id = ANY(ARRAY(SELECT run_id FROM due WHERE NOT legacy))
            ORDER BY id FOR UPDATE),
        completed AS (
            UPDATE runs SET status = \(RunStatus.completed.rawValue), updated_at = now()
            WHERE id = ANY(ARRAY(SELECT id FROM locked WHERE open)))
        SELECT t.run_id, t.local_id, t.decided_at, t.acknowledged_at, t.fallback_reason, d.legacy
        FROM taken t JOIN due d USING (run_id, local_id) ORDER BY t.decided_at
        """ as PostgresQuery).plannedEachTime()
    }
}
