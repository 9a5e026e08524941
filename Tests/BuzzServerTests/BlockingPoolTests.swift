import BuzzTesting
import Foundation
import XCTest
@testable import BuzzAPI

/// The API's blocking work (PostgreSQL, the group commit of phones' acknowledgments) runs on
/// threads of its own, as many at once as there are requests waiting, so a request never
/// waits for a thread while another waits on PostgreSQL.
final class BlockingPoolTests: XCTestCase {
    /// Requests that wait on one another, as a group commit's followers wait for its leader,
    /// all run at once: none waits for a thread held by another.
    func testJobsThatWaitOnEachOtherAllRunAtOnce() async throws {
        let pool = BlockingPool(maxThreads: 64, name: "test.blocking")
        let arrived = LockedState(0)
        let together = 24
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<together {
                group.addTask {
                    try await pool.run {
                        arrived.withLock { $0 += 1 }
                        let deadline = Date().addingTimeInterval(10)
                        while arrived.withLock({ $0 }) < together, Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
                        return arrived.withLock { $0 } == together
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        XCTAssertEqual(results.filter { $0 }.count, together, "every job saw all \(together) running at the same time")
        XCTAssertLessThanOrEqual(pool.threadCount, 64)
    }

    /// Past its threads, work waits its turn and still runs, no more at once than allowed.
    func testWorkBeyondTheThreadsWaitsItsTurn() async throws {
        let pool = BlockingPool(maxThreads: 2, name: "test.blocking")
        let running = LockedState((now: 0, most: 0, done: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await pool.run {
                        running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        Thread.sleep(forTimeInterval: 0.01)
                        running.withLock { $0.now -= 1; $0.done += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = running.withLock { $0 }
        XCTAssertEqual(seen.done, 12)
        XCTAssertLessThanOrEqual(seen.most, 2)
        XCTAssertLessThanOrEqual(pool.threadCount, 2)
    }

    /// A queue thousands long drains in the order it was submitted.
    func testALongQueueDrainsInOrder() {
        let pool = BlockingPool(maxThreads: 1, name: "test.blocking")
        let order = LockedState<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let total = 3_000
        for n in 0..<total {
            pool.submit {
                let count = order.withLock { $0.append(n); return $0.count }
                if count == total { done.signal() }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(order.withLock { $0 }, Array(0..<total))
    }

    /// An error thrown by the work reaches the caller.
    func testErrorsReachTheCaller() async {
        struct Refused: Error {}
        let pool = BlockingPool(maxThreads: 4, name: "test.blocking")
        do {
            _ = try await pool.run { () throws -> Int in throw Refused() }
            XCTFail("expected the work's error")
        } catch {
            XCTAssertTrue(error is Refused)
        }
    }

    /// A quiet pool keeps no threads.
    func testIdleThreadsEnd() async throws {
        let pool = BlockingPool(maxThreads: 8, idleSeconds: 0.1, name: "test.blocking")
        let value = try await pool.run { 7 }
        XCTAssertEqual(value, 7)
        let deadline = Date().addingTimeInterval(5)
        while pool.threadCount > 0, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertEqual(pool.threadCount, 0)
        let again = try await pool.run { 8 }
        XCTAssertEqual(again, 8, "a new thread starts for work after the pool went quiet")
    }
}
