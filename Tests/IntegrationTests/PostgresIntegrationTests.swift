import Foundation
import PostgresClient
import XCTest

final class PostgresIntegrationTests: SchemaTestCase {
    override func setUpWithError() throws { try open("pgtest", migrated: false) }

    struct Payload: Codable, Sendable, Equatable { var title: String; var tags: [String] }

    func testEveryTypeRoundTrips() throws {
        let id = UUID()
        let at = Date(timeIntervalSince1970: 1_796_029_200.654321)
        let payload = Payload(title: "Leg day", tags: ["gym", "ünïcödé"])
        try pool.withConnection { db in
            try db.execute("""
                CREATE TABLE samples (id uuid PRIMARY KEY, n bigint, small integer, label text, flag boolean,
                                      ratio double precision, at timestamptz, doc jsonb, names text[], blob bytea, missing text)
                """)
            let inserted = try db.execute("""
                INSERT INTO samples VALUES (\(id), \(Int64.max), \(Int32(-7)), \("it's \"quoted\""), \(true), \(0.125),
                                            \(at), \(JSONB(payload)), \(["a", "b,c"]), \(Data([1, 2, 255])), \(String?.none))
                """)
            XCTAssertEqual(inserted, 1)
            let row = try db.query("SELECT * FROM samples WHERE id = \(id)")[0]
            XCTAssertEqual(try row.decode("id", as: UUID.self), id)
            XCTAssertEqual(try row.decode("n", as: Int64.self), Int64.max)
            XCTAssertEqual(try row.decode("small", as: Int32.self), -7)
            XCTAssertEqual(try row.decode("label", as: String.self), "it's \"quoted\"")
            XCTAssertEqual(try row.decode("flag", as: Bool.self), true)
            XCTAssertEqual(try row.decode("ratio", as: Double.self), 0.125)
            XCTAssertEqual(try row.decode("at", as: Date.self).timeIntervalSince1970, at.timeIntervalSince1970, accuracy: 0.000001)
            XCTAssertEqual(try row.decode("doc", as: JSONB<Payload>.self).value, payload)
            XCTAssertEqual(try row.decode("names", as: [String].self), ["a", "b,c"])
            XCTAssertEqual(try row.decode("blob", as: Data.self), Data([1, 2, 255]))
            XCTAssertNil(try row.decode("missing", as: String?.self))
            XCTAssertThrowsError(try row.decode("missing", as: String.self))
        }
    }

    /// Arrays bound in binary (text, uuid, timestamptz) read back as they were written, and name
    /// the same microsecond as the same time bound as text.
    func testBinaryArraysRoundTrip() throws {
        let ids = [UUID(), UUID()]
        let times = [Date(timeIntervalSince1970: 1_796_029_200.654321), Date(timeIntervalSince1970: -86_400.25),
                     Date(timeIntervalSince1970: 946_684_800.0000004)]
        let texts = ["a", "b,c", "{\"json\": [1]}", "back\\slash", "ünïcödé", "", "NULL"]
        try pool.withConnection { db in
            let row = try db.query("""
                SELECT (SELECT array_agg(t::text ORDER BY o) FROM unnest(\(ids)::uuid[]) WITH ORDINALITY AS u(t, o)) AS ids,
                       \(texts)::text[] AS texts, cardinality(\([String]())::text[]) AS none,
                       (SELECT bool_and(t = s) FROM unnest(\(times)::timestamptz[], ARRAY[\(times[0]), \(times[1]), \(times[2])]::timestamptz[]) AS u(t, s)) AS same
                """)[0]
            XCTAssertEqual(try row.decode("ids", as: [String].self), ids.map(\.lowercasedText))
            XCTAssertEqual(try row.decode("texts", as: [String].self), texts)
            XCTAssertEqual(try row.decode("none", as: Int.self), 0)
            XCTAssertEqual(try row.decode("same", as: Bool.self), true)
            // Text cast to uuid[] goes as text, which the server reads as uuids.
            XCTAssertEqual(try db.query("SELECT (\(ids.map(\.lowercasedText))::uuid[])[2]::text AS v")[0].decode("v", as: String.self),
                           ids[1].lowercasedText)
            XCTAssertThrowsError(try db.query("SELECT \(["not-a-uuid"])::uuid[] AS v"))
            // Integers, flags and bytes in binary read back as written; an Int beyond `int` is refused.
            let numbers = [0, 1, -1, Int(Int32.max), Int(Int32.min)], flags = [true, false, true]
            let blobs = [Data(), Data([0x00, 0xff, 0x5c, 0x78]), Data((0..<3000).map { UInt8($0 % 251) })]
            let other = try db.query("""
                SELECT (SELECT array_agg(n::bigint ORDER BY o) FROM unnest(\(numbers)::int[]) WITH ORDINALITY AS u(n, o)) AS numbers,
                       (SELECT array_agg(f::text ORDER BY o) FROM unnest(\(flags)::bool[]) WITH ORDINALITY AS u(f, o)) AS flags,
                       (SELECT array_agg(encode(b, 'hex') ORDER BY o) FROM unnest(\(blobs)::bytea[]) WITH ORDINALITY AS u(b, o)) AS blobs
                """)[0]
            XCTAssertEqual(try other.decode("numbers", as: [String].self), numbers.map(String.init))
            XCTAssertEqual(try other.decode("flags", as: [String].self), ["true", "false", "true"])
            XCTAssertEqual(try other.decode("blobs", as: [String].self), blobs.map { $0.map { String(format: "%02x", $0) }.joined() })
            XCTAssertThrowsError(try db.query("SELECT \([1 << 40])::int[] AS v"))
        }
    }

    func testABindWithANULIsRefusedBeforeAnythingRuns() throws {
        try pool.withConnection { db in
            let long = String(repeating: "x", count: 200_000)
            for bad in ["a\u{0}b", long + "\u{0}", "\u{0}"] {
                XCTAssertThrowsError(try db.query("SELECT \(bad)::text AS v")) { error in
                    XCTAssertEqual((error as? PostgresError)?.code, .invalidBind)
                }
            }
            XCTAssertThrowsError(try db.query("SELECT \(["ok", "n\u{0}ul"])::text[] AS v"), "inside an array too")
            XCTAssertEqual(try db.query("SELECT \(long + "é")::text AS v")[0].decode("v", as: String.self).count, 200_001)
        }
    }

    /// A statement marked ``PostgresQuery/plannedEachTime()`` is never prepared, so PostgreSQL
    /// never swaps its plan for a generic one made while a queue table was empty; the same
    /// statement unmarked is prepared and goes generic after five runs.
    func testAStatementPlannedEachTimeIsNeverPreparedOrGeneric() throws {
        let db = try PostgresConnection(url: TestServices.url(schema: schema))
        defer { db.close() }
        try db.execute("CREATE TABLE waiting (id uuid PRIMARY KEY, note text NOT NULL)")
        let ids = (0..<20).map { _ in UUID() }
        func lookUp(_ planned: Bool) throws -> Int {
            let query: PostgresQuery = "SELECT id FROM waiting WHERE id = ANY(\(ids)::uuid[])"
            return try db.query(planned ? query.plannedEachTime() : query).count
        }
        for _ in 0..<7 {
            XCTAssertEqual(try lookUp(false), 0)
            XCTAssertEqual(try lookUp(true), 0)
        }
        try db.execute("INSERT INTO waiting SELECT unnest(\(ids)::uuid[]), 'due'")
        XCTAssertEqual(try lookUp(true), 20)
        XCTAssertEqual(try lookUp(false), 20)
        let prepared = try db.query("SELECT statement, generic_plans FROM pg_prepared_statements WHERE statement LIKE '%FROM waiting WHERE%' AND statement NOT LIKE '%pg_prepared%'")
        XCTAssertEqual(prepared.count, 1, "only the unmarked statement is prepared")
        XCTAssertGreaterThan(try prepared[0].decode("generic_plans", as: Int.self), 0, "and PostgreSQL made it generic")
    }

    func testBadSQLGivesTypedErrorWithSQLState() throws {
        try pool.withConnection { db in
            XCTAssertThrowsError(try db.query("SELEC 1")) { error in
                let pg = error as? PostgresError
                XCTAssertEqual(pg?.code, .server)
                XCTAssertEqual(pg?.sqlState, "42601")
                XCTAssertEqual(pg?.statement, "SELEC 1")
            }
            XCTAssertThrowsError(try db.query("SELECT * FROM no_such_table WHERE id = \(1)")) { error in
                XCTAssertEqual((error as? PostgresError)?.sqlState, "42P01")
            }
            try db.execute("CREATE TABLE uniq (k text PRIMARY KEY)")
            try db.execute("INSERT INTO uniq VALUES (\("a"))")
            XCTAssertThrowsError(try db.execute("INSERT INTO uniq VALUES (\("a"))")) { error in
                XCTAssertTrue((error as? PostgresError)?.isUniqueViolation == true)
            }
            // The connection is still usable after errors.
            XCTAssertEqual(try db.query("SELECT 1 AS one")[0].decode("one", as: Int.self), 1)
        }
    }

    func testTransactionRollsBackOnThrownError() throws {
        struct Boom: Error {}
        try pool.withConnection { try $0.execute("CREATE TABLE ledger (v int)") }
        XCTAssertThrowsError(try pool.withTransaction { db in
            try db.execute("INSERT INTO ledger VALUES (\(1))")
            throw Boom()
        })
        try pool.withTransaction { try $0.execute("INSERT INTO ledger VALUES (\(2))") }
        let values = try pool.withConnection { try $0.query("SELECT v FROM ledger").map { try $0.decode("v", as: Int.self) } }
        XCTAssertEqual(values, [2])
    }

    /// `BEGIN` goes out with a transaction's first statement, in one pipeline: that statement
    /// failing, or the connection dying under it, reads as before, and the connection is fit
    /// for the next transaction; a transaction that ran nothing commits nothing.
    func testATransactionsFirstStatementCarriesItsBegin() throws {
        let url = TestServices.url(schema: schema)
        let db = try PostgresConnection(url: url)
        try db.execute("CREATE TABLE firsts (id integer PRIMARY KEY)")
        try db.execute("INSERT INTO firsts VALUES (\(1))")
        XCTAssertThrowsError(try db.transaction { tx in
            try tx.execute("INSERT INTO firsts VALUES (\(1))")
        }) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "23505")
        }
        XCTAssertEqual(try db.transaction { _ in 7 }, 7)
        // In a transaction: both rows or neither.
        struct Boom: Error {}
        XCTAssertThrowsError(try db.transaction { tx in
            try tx.execute("INSERT INTO firsts VALUES (\(2))")
            try tx.execute("INSERT INTO firsts VALUES (\(3))")
            throw Boom()
        })
        try db.transaction { tx in
            try tx.execute("INSERT INTO firsts VALUES (\(4))")
            XCTAssertEqual(try tx.query("SELECT count(*)::int AS n FROM firsts")[0].decode("n") as Int32, 2)
        }
        XCTAssertEqual(try db.query("SELECT array_agg(id ORDER BY id)::text AS ids FROM firsts")[0].decode("ids") as String, "{1,4}")

        let killer = try PostgresConnection(url: url)
        let pid: Int32 = try db.query("SELECT pg_backend_pid() AS pid")[0].decode("pid")
        _ = try killer.query("SELECT pg_terminate_backend(\(pid))")
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertThrowsError(try db.transaction { tx in
            try tx.execute("INSERT INTO firsts VALUES (\(5))")
        }) { error in
            XCTAssertEqual((error as? PostgresError)?.isConnectionProblem, true, "\(error)")
        }
        XCTAssertFalse(db.isHealthy)
        XCTAssertEqual(try killer.query("SELECT count(*)::int AS n FROM firsts")[0].decode("n") as Int32, 2)
    }

    /// A connection that breaks with COMMIT on its way may have committed: the API must not
    /// answer "nothing was changed" (503, on which a phone withdraws what it acknowledged).
    /// A COMMIT the server refuses (a deferred constraint) rolled back for sure.
    func testACommitCutOffIsMarkedUncertainAndARefusedOneIsNot() throws {
        let url = TestServices.url(schema: schema)
        let db = try PostgresConnection(url: url)
        let killer = try PostgresConnection(url: url)
        try db.execute("CREATE TABLE marks (id integer PRIMARY KEY)")
        let pid: Int32 = try db.query("SELECT pg_backend_pid() AS pid")[0].decode("pid")
        var cutOff: PostgresError?
        do {
            try db.transaction { tx in
                try tx.execute("INSERT INTO marks VALUES (1)")
                _ = try killer.query("SELECT pg_terminate_backend(\(pid))")
            }
        } catch let error as PostgresError {
            cutOff = error
        }
        XCTAssertEqual(cutOff?.isConnectionProblem, true)
        XCTAssertEqual(cutOff?.commitOutcomeUnknown, true)

        try killer.execute("""
            CREATE TABLE once (id integer, CONSTRAINT once_unique UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)
            """)
        var refused: PostgresError?
        do {
            try killer.transaction { tx in
                try tx.execute("INSERT INTO once VALUES (1)")
                try tx.execute("INSERT INTO once VALUES (1)")
            }
        } catch let error as PostgresError {
            refused = error
        }
        XCTAssertEqual(refused?.sqlState, "23505")
        XCTAssertEqual(refused?.commitOutcomeUnknown, false)
        XCTAssertEqual(try killer.query("SELECT count(*)::int AS n FROM once")[0].decode("n") as Int32, 0)
    }

    func testSkipLockedClaimersGetDisjointRows() throws {
        try pool.withConnection { db in
            try db.execute("CREATE TABLE jobs (id serial PRIMARY KEY, claimed_by text)")
            try db.execute("INSERT INTO jobs (claimed_by) SELECT NULL FROM generate_series(1, 2000)")
        }
        let claims = [LockedList(), LockedList()]
        let group = DispatchGroup()
        let pool = self.pool!
        for worker in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                while true {
                    let ids = try! pool.withTransaction { db in
                        try db.query("""
                            UPDATE jobs SET claimed_by = \("w\(worker)") WHERE id IN (
                              SELECT id FROM jobs WHERE claimed_by IS NULL ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED)
                            RETURNING id
                            """).map { try $0.decode("id", as: Int.self) }
                    }
                    if ids.isEmpty { return }
                    claims[worker].append(ids)
                }
            }.start()
        }
        group.wait()
        let a = Set(claims[0].items), b = Set(claims[1].items)
        XCTAssertTrue(a.isDisjoint(with: b), "both claimers got \(a.intersection(b).count) of the same rows")
        XCTAssertEqual(a.union(b).count, 2000)
        XCTAssertEqual(claims[0].items.count + claims[1].items.count, 2000)
        XCTAssertFalse(a.isEmpty || b.isEmpty, "one claimer starved: the test did not exercise concurrency")
    }

    func testListenNotify() throws {
        let listener = try PostgresConnection(url: TestServices.databaseURL)
        defer { listener.close() }
        try listener.listen("timers_due")
        try pool.withTransaction { try $0.notify("timers_due", payload: "42") }
        var received: [PostgresNotification] = []
        _ = try TestServices.eventually(timeout: 5) {
            received += try listener.waitForNotifications(timeout: 0.5)
            return !received.isEmpty
        }
        XCTAssertEqual(received, [PostgresNotification(channel: "timers_due", payload: "42")])
        XCTAssertEqual(try listener.waitForNotifications(timeout: 0.1), [])
    }

    func testPoolRecoversAfterServerRestart() throws {
        XCTAssertEqual(try pool.withConnection { try $0.query("SELECT 1 AS one")[0].decode("one", as: Int.self) }, 1)
        XCTAssertEqual(pool.openConnections, 1)
        try TestServices.services("restart-postgres")
        // The idle connection died with the server; the pool notices and opens a new one.
        let value = try pool.withConnection { try $0.query("SELECT 2 AS two")[0].decode("two", as: Int.self) }
        XCTAssertEqual(value, 2)
    }

    /// After a failover the old primary, if it still answers, is read-only: a pooled connection
    /// to it refuses writes (SQLSTATE 25006). The pool retires that connection, and the next
    /// borrower gets a fresh one (with `target_session_attrs=read-write`, on the new primary).
    func testAConnectionThatRefusesWritesIsRetired() throws {
        let single = try TestServices.pool(schema: schema, maxConnections: 1)
        defer { single.close() }
        try single.withConnection { db in
            try db.execute("CREATE TABLE IF NOT EXISTS writes (n integer)")
            // What a demoted primary does to every session: read-only from now on.
            try db.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        }
        XCTAssertThrowsError(try single.withTransaction { try $0.execute("INSERT INTO writes VALUES (1)") }) { error in
            let pg = error as? PostgresError
            XCTAssertEqual(pg?.sqlState, "25006")
            XCTAssertTrue(pg?.isConnectionProblem == true, "a write refused as read-only is an outage to wait out, not a failure")
        }
        // The retired connection is gone: the same pool writes again on a new one.
        XCTAssertEqual(try single.withTransaction { try $0.execute("INSERT INTO writes VALUES (2)") }, 1)
        XCTAssertEqual(try single.withConnection { try $0.query("SELECT count(*)::int AS n FROM writes")[0].decode("n", as: Int.self) }, 1)
    }

    func testPoolBoundsConnections() throws {
        let small = try TestServices.pool(schema: schema, maxConnections: 2)
        defer { small.close() }
        let started = Date()
        TestServices.threads(8) { _ in _ = try? small.withConnection { try $0.query("SELECT pg_sleep(0.1)") } }.wait()
        // Eight 0.1 s statements over two connections take at least four rounds.
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.39)
        XCTAssertLessThanOrEqual(small.openConnections, 2)
    }
}

final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int] = []
    func append(_ values: [Int]) { lock.lock(); storage += values; lock.unlock() }
    var items: [Int] { lock.lock(); defer { lock.unlock() }; return storage }
}
