import AMQPClient
import BuzzServer
import Foundation
import PostgresClient
import PushDeliveryTesting

/// What one whole window writes, as PostgreSQL and RabbitMQ count it: windows offered at a
/// steady 2,000 a second where every device acknowledges its plan, then windows nobody
/// acknowledges (each falls back), each kind counted from the first event until its runs
/// are written completed. Per window: rows inserted, updated (heap-only among them) and
/// deleted per table, the index entries those writes made, statements (`pg_stat_statements`,
/// switched on for the phase), commits, and broker messages (the events the services send,
/// and every message BuzzKit publishes; the phones' acknowledgments go to the API over HTTP).
struct WindowWrites {
    let runtime: Runtime
    let push: InMemoryPushProvider
    let topology: Topology
    let tenantId: String
    let subscribers: Int
    /// The API the phones acknowledge through.
    let phones: PhoneAckClient.Endpoint

    /// One table's writes per window.
    struct Table {
        var name: String
        var inserted = 0.0, updated = 0.0, hot = 0.0, deleted = 0.0
        /// B-tree entries written (an insert, or an update that is not heap-only, adds one to
        /// each; a partial index is counted as if every row matched, so it is an upper bound).
        var indexEntries = 0.0
    }

    struct Counts {
        var tables: [Table]
        var statements: Double?
        var commits: Double
        var brokerMessages: Double
        /// The statements that took PostgreSQL the most time, from `pg_stat_statements`.
        var costliest: [Statement] = []
    }

    /// One statement's share of a window: calls and execution time (inside PostgreSQL, so
    /// waits for locks and for the CPU are in it).
    struct Statement {
        var text: String
        var callsPerWindow: Double
        var microsecondsPerCall: Double
        var microsecondsPerWindow: Double
    }

    /// Counts `windows` windows of one kind.
    func count(windows: Int, acknowledged: Bool) throws -> Counts {
        let tracking = try switchStatements(on: true)
        defer { _ = try? switchStatements(on: false) }
        try settle()
        let profile = StatementProfile(pool: runtime.pool)  // resets the counters
        let before = try snapshot(statements: tracking)
        let published = runtime.publisher.confirmedCount
        var sustained = SustainedWindows(runtime: runtime, push: push, topology: topology, tenantId: tenantId, subscribers: subscribers, phones: phones)
        sustained.acknowledges = { _ in acknowledged }
        let rate = 2000
        let result = try sustained.run(rate: rate, seconds: max(1, windows / rate), lead: 5)
        try settle()
        let after = try snapshot(statements: tracking)
        let n = Double(result.windows)
        let driverMessages = Double(result.windows)  // the events; acknowledgments go over HTTP
        var tables: [Table] = []
        for (name, end) in after.tables.sorted(by: { $0.key < $1.key }) {
            let start = before.tables[name] ?? Snapshot.Row()
            var table = Table(name: name)
            table.inserted = Double(end.inserted - start.inserted) / n
            table.updated = Double(end.updated - start.updated) / n
            table.hot = Double(end.hot - start.hot) / n
            table.deleted = Double(end.deleted - start.deleted) / n
            table.indexEntries = (table.inserted + table.updated - table.hot) * Double(end.btrees)
            if table.inserted + table.updated + table.deleted > 0.0005 { tables.append(table) }
        }
        let costliest = profile.costliest(top: 8).map { entry in
            Statement(text: String(entry.text.prefix(90)), callsPerWindow: Double(entry.calls) / n,
                      microsecondsPerCall: entry.calls > 0 ? entry.milliseconds * 1000 / Double(entry.calls) : 0,
                      microsecondsPerWindow: entry.milliseconds * 1000 / n)
        }
        return Counts(tables: tables, statements: tracking ? Double(after.statements - before.statements) / n : nil,
                      commits: Double(after.commits - before.commits) / n,
                      brokerMessages: (Double(runtime.publisher.confirmedCount - published) + driverMessages) / n, costliest: costliest)
    }

    /// Waits until nothing of an earlier window is left to do (every decision's run filed, the
    /// outbox empty), then until every backend has reported its counters
    /// (PostgreSQL 15 flushes an idle backend's table statistics within 10 s).
    func settle() throws {
        try PipelineBench.waitUntil("window writes: earlier windows finished", timeout: 180, every: 0.25) {
            try PipelineBench.noRunOpen(runtime.pool, tenantId: tenantId) && runtime.pool.withConnection { db in
                try db.query("""
                    SELECT NOT EXISTS (SELECT 1 FROM window_decisions WHERE filed IS NOT TRUE) AND NOT EXISTS (SELECT 1 FROM outbox) AS done
                    """)[0].decode("done", as: Bool.self)
            }
        }
        Thread.sleep(forTimeInterval: 11)
    }

    /// Counters at one instant.
    private struct Snapshot {
        struct Row { var inserted = 0, updated = 0, hot = 0, deleted = 0, btrees = 0 }
        var tables: [String: Row] = [:]
        var statements = 0
        var commits = 0
    }

    private func snapshot(statements tracking: Bool) throws -> Snapshot {
        try runtime.pool.withConnection { db in
            var snapshot = Snapshot()
            for row in try db.query("""
                SELECT s.relname::text AS name, s.n_tup_ins AS i, s.n_tup_upd AS u, s.n_tup_hot_upd AS h, s.n_tup_del AS d,
                       (SELECT count(*) FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_am a ON a.oid = c.relam
                        WHERE x.indrelid = s.relid AND a.amname = 'btree') AS btrees
                FROM pg_stat_user_tables s WHERE s.schemaname = current_schema()
                """) {
                snapshot.tables[try row.decode("name")] = .init(inserted: try row.decode("i"), updated: try row.decode("u"), hot: try row.decode("h"),
                                                                deleted: try row.decode("d"), btrees: try row.decode("btrees"))
            }
            snapshot.commits = try db.query("SELECT xact_commit AS c FROM pg_stat_database WHERE datname = current_database()")[0].decode("c")
            if tracking {
                snapshot.statements = try db.query("""
                    SELECT coalesce(sum(calls), 0)::bigint AS n FROM public.pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                    WHERE d.datname = current_database() AND s.query NOT LIKE '%pg_stat%'
                    """)[0].decode("n")
            }
            return snapshot
        }
    }

    /// Switches `pg_stat_statements` on for every backend (when the library is loaded, as
    /// `scripts/services.sh` does with tracking off); says whether it is counting.
    private func switchStatements(on: Bool) throws -> Bool {
        try runtime.pool.withConnection { db in
            guard try db.query("SELECT 1 AS x FROM pg_settings WHERE name = 'pg_stat_statements.track'").first != nil else { return false }
            _ = try db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public")
            _ = try db.execute(on ? "ALTER SYSTEM SET pg_stat_statements.track = 'top'" : "ALTER SYSTEM RESET pg_stat_statements.track")
            _ = try db.query("SELECT pg_reload_conf() AS r")
            Thread.sleep(forTimeInterval: 0.5)  // every backend reads the file at its next statement
            return on
        }
    }
}

extension WindowWrites.Counts {
    /// The two kinds side by side as a markdown table: per table, rows inserted, updated
    /// (heap-only of them), deleted and index entries; then statements, commits and broker
    /// messages.
    static func table(acknowledged a: Self, fallback f: Self, windows: Int) -> [String] {
        func number(_ value: Double) -> String { value == 0 ? "0" : String(format: "%.2f", value) }
        func cells(_ t: WindowWrites.Table?) -> String {
            guard let t else { return "0 | 0 | 0 | 0" }
            return "\(number(t.inserted)) | \(number(t.updated)) (\(number(t.hot))) | \(number(t.deleted)) | \(number(t.indexEntries))"
        }
        var lines = ["", "What one window writes (`make bench`, \(windows) windows of each kind offered at 2,000/s; per window, "
                         + "from PostgreSQL's and RabbitMQ's own counters; updates show the heap-only ones in brackets; index "
                         + "entries count partial indexes as if every row matched):", "",
                     "| per window | acknowledged: inserted | updated (HOT) | deleted | index entries | falls back: inserted | updated (HOT) | deleted | index entries |",
                     "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        let names = Set(a.tables.map(\.name)).union(f.tables.map(\.name)).sorted()
        for name in names {
            lines.append("| `\(name)` | \(cells(a.tables.first { $0.name == name })) | \(cells(f.tables.first { $0.name == name })) |")
        }
        let rows: [(String, Double?, Double?)] = [
            ("rows written, every table", a.tables.map { $0.inserted + $0.updated + $0.deleted }.reduce(0, +),
             f.tables.map { $0.inserted + $0.updated + $0.deleted }.reduce(0, +)),
            ("index entries, every table", a.tables.map(\.indexEntries).reduce(0, +), f.tables.map(\.indexEntries).reduce(0, +)),
            ("statements", a.statements, f.statements), ("commits", a.commits, f.commits),
            ("broker messages (the services' events included)", a.brokerMessages, f.brokerMessages),
        ]
        for (name, x, y) in rows {
            lines.append("| \(name) | \(x.map(number) ?? "n/a") | | | | \(y.map(number) ?? "n/a") | | | |")
        }
        for (kind, counts) in [("acknowledged", a), ("falling back", f)] where !counts.costliest.isEmpty {
            lines += ["", "The statements that took PostgreSQL the most time in the \(kind) windows (`pg_stat_statements`; execution time "
                          + "inside PostgreSQL, lock and CPU waits included):", "",
                      "| statement | calls per window | µs per call | µs per window |", "|---|---:|---:|---:|"]
            for statement in counts.costliest {
                let text = statement.text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'")
                lines.append("| `\(text)` | \(number(statement.callsPerWindow)) | \(String(format: "%.1f", statement.microsecondsPerCall)) | \(String(format: "%.1f", statement.microsecondsPerWindow)) |")
            }
        }
        return lines
    }
}

extension WindowWrites {
    /// Bytes each table of the current schema takes on disk, its indexes and TOAST included.
    static func tableBytes(_ pool: PostgresPool) throws -> [String: Int] {
        try pool.withConnection { db in
            var bytes: [String: Int] = [:]
            for row in try db.query("""
                SELECT relname::text AS name, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables WHERE schemaname = current_schema()
                """) {
                bytes[try row.decode("name")] = try row.decode("bytes")
            }
            return bytes
        }
    }

    /// Storage per window: what the tables grew by over `windows` finished windows, in all
    /// and by table (the largest first).
    static func storage(before: [String: Int], after: [String: Int], windows: Int) -> (total: Double, byTable: String) {
        let grown = after.map { ($0.key, Double($0.value - (before[$0.key] ?? 0)) / Double(windows)) }.filter { $0.1 >= 1 }.sorted { $0.1 > $1.1 }
        return (grown.map(\.1).reduce(0, +), grown.map { String(format: "%@ %.0f B", $0.0, $0.1) }.joined(separator: ", "))
    }
}
