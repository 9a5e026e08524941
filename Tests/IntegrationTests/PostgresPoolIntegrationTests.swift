import Foundation
import PostgresClient
import XCTest

/// ``PostgresPool``'s line on real PostgreSQL: callers waiting for a connection are served in
/// the order they came.
final class PostgresPoolIntegrationTests: SchemaTestCase {
    override func setUpWithError() throws { try open("pool", migrated: false) }

    /// Waits up to 5 s until `pool` has `count` callers in line.
    func waitForLine(_ pool: PostgresPool, _ count: Int) {
        let deadline = Date().addingTimeInterval(5)
        while pool.waitingCallers < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        XCTAssertEqual(pool.waitingCallers, count)
    }

    /// A caller that waits for a connection gets the next one given back before anyone who
    /// asks later: a thread that gives its connection back and asks again at once (a worker's
    /// next batch) goes behind it in line, instead of taking the connection before the waiter
    /// it woke could run, batch after batch.
    func testACallerWaitingForAConnectionIsServedBeforeOneWhoAsksLater() throws {
        let single = try TestServices.pool(schema: schema, maxConnections: 1)
        defer { single.close() }
        let served = LockedList()
        var waiting: DispatchGroup?
        try single.withConnection { _ in
            waiting = TestServices.threads(1) { _ in _ = try? single.withConnection { _ in served.append([1]) } }
            waitForLine(single, 1)
        }
        try single.withConnection { _ in served.append([2]) }
        waiting?.wait()
        XCTAssertEqual(served.items, [1, 2], "the waiter first, then the one who asked again")
        XCTAssertEqual(single.openConnections, 1)
    }

    /// A caller whose wait runs out leaves the line: the connection given back later goes to
    /// the next caller, not to a waiter that has given up.
    func testACallerThatGaveUpWaitingLeavesTheLine() throws {
        let single = try TestServices.pool(schema: schema, maxConnections: 1, acquireTimeout: 0.2)
        defer { single.close() }
        try single.withConnection { _ in
            XCTAssertThrowsError(try single.withConnection { _ in }) { error in
                XCTAssertEqual((error as? PostgresError)?.code, .poolTimeout)
            }
            XCTAssertEqual(single.waitingCallers, 0)
        }
        XCTAssertEqual(try single.withConnection { try $0.query("SELECT 3 AS n")[0].decode("n", as: Int.self) }, 3)
        XCTAssertEqual(single.openConnections, 1)
    }

    /// A connection that broke frees its place for the first caller in line, who opens a new one.
    func testAWaiterOpensANewConnectionWhenTheBorrowedOneBreaks() throws {
        let single = try TestServices.pool(schema: schema, maxConnections: 1)
        defer { single.close() }
        let served = LockedList()
        var waiting: DispatchGroup?
        try? single.withConnection { db in
            waiting = TestServices.threads(1) { _ in
                _ = try? single.withConnection { served.append([try $0.query("SELECT 4 AS n")[0].decode("n", as: Int.self)]) }
            }
            waitForLine(single, 1)
            // This session ends under the borrower: the pool closes it when it comes back.
            _ = try? db.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        }
        waiting?.wait()
        XCTAssertEqual(served.items, [4])
        XCTAssertLessThanOrEqual(single.openConnections, 1)
    }
}
