import Foundation
import PostgresClient

/// Where a phase's PostgreSQL time goes, statement by statement: when the server has
/// `pg_stat_statements` counting (`scripts/services.sh` loads it with tracking off, since
/// counting costs a few percent itself; `ALTER SYSTEM SET pg_stat_statements.track = 'top'`
/// and `SELECT pg_reload_conf()` before a bench switch it on), the counters are reset as the
/// phase begins and
/// ``finish(_:into:)`` adds the statements that took the most time to the report's notes,
/// with their time per row. Without the extension (in schema `public`) it records nothing
/// and says so.
final class StatementProfile {
    private let pool: PostgresPool
    private let available: Bool

    init(pool: PostgresPool) {
        self.pool = pool
        available = (try? pool.withConnection { db -> Bool in
            guard try db.query("SELECT 1 AS x FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements' AND n.nspname = 'public'").first != nil,
                  try db.query("SELECT 1 AS x FROM pg_settings WHERE name = 'pg_stat_statements.track' AND setting <> 'none'").first != nil else { return false }
            _ = try db.query("SELECT public.pg_stat_statements_reset() IS NULL AS reset")
            return true
        }) ?? false
    }

    /// One statement's totals since the phase began.
    struct Entry {
        var text: String
        var calls: Int
        var rows: Int
        var milliseconds: Double
    }

    /// The `top` statements by total execution time since the phase began (the bench's own
    /// polls and lateness query left out); empty when nothing is counted.
    func costliest(top: Int) -> [Entry] {
        guard available, let rows = try? pool.withConnection({ db in
            try db.query("""
                SELECT s.total_exec_time AS ms, s.calls, s.rows, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) AS text
                FROM public.pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                WHERE d.datname = current_database() AND s.query NOT LIKE '%pg_stat%'
                  AND s.query NOT LIKE '%count(*)%' AND s.query NOT LIKE '%r.state::json%'
                ORDER BY s.total_exec_time DESC LIMIT \(top)
                """)
        }) else { return [] }
        return rows.compactMap { row in
            guard let ms = try? row.decode("ms", as: Double.self), let calls = try? row.decode("calls", as: Int.self),
                  let count = try? row.decode("rows", as: Int.self), let text = try? row.decode("text", as: String.self) else { return nil }
            return Entry(text: text, calls: calls, rows: count, milliseconds: ms)
        }
    }

    /// Adds the `top` statements by total execution time since the phase began to `report`.
    func finish(_ what: String, top: Int = 12, into report: inout BenchReport) {
        guard available else {
            report.notes.append("\(what): no statement profile (pg_stat_statements not loaded)")
            return
        }
        report.notes.append("\(what): PostgreSQL statements by execution time (ms in all, calls, µs a row, statement)")
        for entry in costliest(top: top) {
            report.notes.append(String(format: "  %8.0f %7d %8.1f  %@", entry.milliseconds, entry.calls,
                                       entry.rows > 0 ? entry.milliseconds * 1000 / Double(entry.rows) : 0, entry.text))
        }
    }
}
