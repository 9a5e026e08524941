import BuzzServer
import Foundation
import PostgresClient
import XCTest

final class MigrationIntegrationTests: XCTestCase {
    func testConcurrentMigratorsApplyEachMigrationOnce() throws {
        let schema = TestServices.uniqueName("mig")
        defer { TestServices.dropSchema(schema) }
        let pool = PostgresPool(url: TestServices.databaseURL, maxConnections: 4)
        defer { pool.close() }
        let migrations = try Migration.bundled()
        XCTAssertFalse(migrations.isEmpty)
        let results = LockedList()
        TestServices.threads(3) { _ in
            do { results.append(try MigrationRunner(pool: pool, schema: schema).migrate(migrations)) } catch { XCTFail("\(error)") }
        }.wait()
        XCTAssertEqual(results.items.sorted(), migrations.map(\.version).sorted(), "each migration applied exactly once")
        let recorded = try pool.withConnection { db in
            try db.query("SELECT version FROM \(unsafeRaw: schema).schema_migrations ORDER BY version").map { try $0.decode("version", as: Int.self) }
        }
        XCTAssertEqual(recorded, migrations.map(\.version))
        XCTAssertEqual(try MigrationRunner(pool: pool, schema: schema).migrate(migrations), [])
    }

    /// `make services` creates the database with byte-order text comparison; an idempotency
    /// key or a subscriber id then orders by code point, as it did under C.UTF-8.
    func testTheServicesDatabaseComparesTextByteByByte() throws {
        let pool = PostgresPool(url: TestServices.databaseURL, maxConnections: 1)
        defer { pool.close() }
        let collation = try MigrationRunner(pool: pool).collation()
        XCTAssertTrue(MigrationRunner.comparesBytes(collation), "LC_COLLATE is \(collation)")
        XCTAssertFalse(MigrationRunner.comparesBytes("C.UTF-8"))
        let ordered = try pool.withConnection { db in
            try db.query("SELECT k FROM unnest(ARRAY['b', 'B', 'a/fallback', 'a', 'é', 'Z']) AS k ORDER BY k").map { try $0.decode("k", as: String.self) }
        }
        XCTAssertEqual(ordered, ["B", "Z", "a", "a/fallback", "b", "é"])
    }

    func testFailingMigrationLeavesNothingBehind() throws {
        let schema = TestServices.uniqueName("mig")
        defer { TestServices.dropSchema(schema) }
        let pool = PostgresPool(url: TestServices.databaseURL, maxConnections: 1)
        defer { pool.close() }
        let broken = try Migration.parse([("0001_ok.sql", "CREATE TABLE a (x int);"), ("0002_bad.sql", "CREATE TABLE b (x nosuchtype);")])
        XCTAssertThrowsError(try MigrationRunner(pool: pool, schema: schema).migrate(broken)) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42704")
        }
        let tables = try pool.withConnection { db in
            try db.query("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = \(schema)")[0].decode("n", as: Int.self)
        }
        XCTAssertEqual(tables, 0)
        XCTAssertThrowsError(try Migration.parse([("first.sql", "")]))
        XCTAssertThrowsError(try Migration.parse([("0001_a.sql", ""), ("0001_b.sql", "")]))
    }
}
