import BuzzServerCore
import BuzzServerTesting
import BuzzStore
import BuzzTesting
import Foundation
import XCTest
@testable import BuzzPipeline

/// Phones' acknowledgments that reach the API together are recorded in one transaction, and
/// each phone is still told only about its own plans.
final class DeviceWordBatcherTests: XCTestCase {
    private static func word(_ subscriber: String, _ localId: String) -> DeviceAcknowledgment {
        DeviceAcknowledgment(subscriberId: subscriber, localId: localId, device: "aa", messageId: nil, kind: .scheduled, at: Date())
    }

    func testRequestsArrivingDuringATransactionAreRecordedTogetherInTheNextOne() throws {
        let batcher = DeviceWordBatcher()
        let calls = LockedState<[[String]]>([])
        let firstStarted = DispatchSemaphore(value: 0), releaseFirst = DispatchSemaphore(value: 0)
        let record: @Sendable ([DeviceWordBatcher.Entry]) -> Void = { entries in
            let first = calls.withLock { $0.isEmpty }
            calls.withLock { $0.append(entries.flatMap { $0.facts.map(\.localId) }) }
            if first { firstStarted.signal(); releaseFirst.wait() }
            DeviceWordBatcher.settle(entries) { _, _ in AcknowledgmentOutcome() }
        }
        // Threads of their own, as the API's blocking calls have (not a width-limited queue).
        let group = DispatchGroup()
        let call = { (n: Int) in
            group.enter()
            Thread { _ = try? batcher.record(tenantId: "t", [Self.word("s\(n)", "r\(n)/a")], recordTogether: record); group.leave() }.start()
        }
        call(0)
        firstStarted.wait()
        for n in 1...8 { call(n) }
        let deadline = Date().addingTimeInterval(10)
        while batcher.waitingCount < 8, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        releaseFirst.signal()
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        let seen = calls.withLock { $0 }
        XCTAssertEqual(seen.count, 2, "the first request alone, then the eight that came while it was recorded, in one transaction")
        XCTAssertEqual(seen.first, ["r0/a"])
        XCTAssertEqual(Set(seen.last ?? []), Set((1...8).map { "r\($0)/a" }))
    }

    /// A request whose words are committed is answered at once, even while the next
    /// transaction (of requests that came later) is being recorded. Under a steady stream of
    /// acknowledgments a transaction is nearly always being recorded, so a request that waited
    /// for the recording to end could be passed over again and again (seconds, in the bench).
    ///
    /// Each trial: A and B wait while R's transaction is recorded, then go together in the
    /// next; C comes during that one and is recorded after it, in a transaction held open. A
    /// and B must both be answered while C's is still open. Which of the woken callers takes
    /// the lock first is the scheduler's choice, so the trial is repeated.
    func testARequestWhoseWordsAreCommittedIsAnsweredWhileALaterTransactionIsRecorded() throws {
        for trial in 0..<12 {
            let batcher = DeviceWordBatcher()
            let calls = LockedState(0)
            let gates = (0..<3).map { _ in DispatchSemaphore(value: 0) }
            let started = (0..<3).map { _ in DispatchSemaphore(value: 0) }
            let record: @Sendable ([DeviceWordBatcher.Entry]) -> Void = { entries in
                let n = calls.withLock { count -> Int in count += 1; return count - 1 }
                if n < 3 { started[n].signal(); gates[n].wait() }
                DeviceWordBatcher.settle(entries) { _, _ in AcknowledgmentOutcome() }
            }
            let answered = LockedState<Set<String>>([])
            let call = { (name: String) in
                Thread {
                    _ = try? batcher.record(tenantId: "t", [Self.word(name, "\(name)/a")], recordTogether: record)
                    answered.withLock { _ = $0.insert(name) }
                }.start()
            }
            func waitFor(_ what: String, _ condition: () -> Bool) {
                let deadline = Date().addingTimeInterval(5)
                while !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                XCTAssertTrue(condition(), "trial \(trial): \(what)")
            }
            call("R")
            started[0].wait()
            call("A"); call("B")
            waitFor("A and B wait for R's transaction") { batcher.waitingCount == 2 }
            gates[0].signal()
            started[1].wait()  // A and B's transaction is being recorded
            call("C")
            waitFor("C waits for A and B's transaction") { batcher.waitingCount == 1 }
            gates[1].signal()
            started[2].wait()  // C's transaction is being recorded, and stays open
            waitFor("A and B are answered while C's transaction is open") { answered.withLock { $0.isSuperset(of: ["R", "A", "B"]) } }
            XCTAssertFalse(answered.withLock { $0.contains("C") }, "C's words are not committed yet")
            gates[2].signal()
            waitFor("C is answered once its transaction ends") { answered.withLock { $0.count == 4 } }
        }
    }

    func testEachRequestIsToldOnlyOfItsOwnLateAndCancelledPlans() throws {
        let a = DeviceWordBatcher.Entry(tenantId: "t", facts: [Self.word("ann", "r1/a"), Self.word("ann", "r2/a")])
        let b = DeviceWordBatcher.Entry(tenantId: "t", facts: [Self.word("bo", "r3/a")])
        var calls = 0
        DeviceWordBatcher.settle([a, b]) { tenantId, facts in
            calls += 1
            XCTAssertEqual(facts.map(\.localId), ["r1/a", "r2/a", "r3/a"])
            return AcknowledgmentOutcome(acknowledged: 1, late: ["r2/a", "r3/a"], cancelled: ["r1/a"])
        }
        XCTAssertEqual(calls, 1, "one transaction for both requests")
        XCTAssertEqual(try a.result?.get(), DeviceWordAnswer(late: ["r2/a"], cancelled: ["r1/a"]))
        XCTAssertEqual(try b.result?.get(), DeviceWordAnswer(late: ["r3/a"], cancelled: []))
    }

    func testTenantsAreRecordedInTransactionsOfTheirOwn() throws {
        let entries = [DeviceWordBatcher.Entry(tenantId: "t2", facts: [Self.word("s", "r1/a")]),
                       DeviceWordBatcher.Entry(tenantId: "t1", facts: [Self.word("s", "r2/a")]),
                       DeviceWordBatcher.Entry(tenantId: "t2", facts: [Self.word("s", "r3/a")])]
        var calls: [(String, [String])] = []
        DeviceWordBatcher.settle(entries) { tenantId, facts in
            calls.append((tenantId, facts.map(\.localId)))
            return AcknowledgmentOutcome()
        }
        XCTAssertEqual(calls.map(\.0), ["t1", "t2"])
        XCTAssertEqual(calls.map(\.1), [["r2/a"], ["r1/a", "r3/a"]])
        XCTAssertTrue(entries.allSatisfy { (try? $0.result?.get()) == DeviceWordAnswer() })
    }

    func testAValueOneRequestCannotStoreFailsThatRequestAloneAndTheOthersAreRecorded() throws {
        let good = DeviceWordBatcher.Entry(tenantId: "t", facts: [Self.word("ann", "r1/a")])
        let bad = DeviceWordBatcher.Entry(tenantId: "t", facts: [Self.word("bo\u{0}", "r2/a")])
        var recorded: [[String]] = []
        DeviceWordBatcher.settle([good, bad]) { _, facts in
            if facts.contains(where: { $0.subscriberId.contains("\u{0}") }) { throw ServerError.input("NUL in a subscriber id") }
            recorded.append(facts.map(\.localId))
            return AcknowledgmentOutcome(acknowledged: facts.count)
        }
        XCTAssertEqual(recorded, [["r1/a"]], "tried together, then one by one")
        XCTAssertEqual(try good.result?.get(), DeviceWordAnswer())
        XCTAssertThrowsError(try bad.result?.get())
    }

    func testAPhoneOfAnErasedSubscriberIsRefusedAndTheOthersAreRecordedAfterOneLookup() throws {
        let store = InMemoryStore()
        let directory = InMemoryDirectory(store: store)
        let tenant = try directory.createTenant(name: "gym", defaultTimezone: "Europe/Berlin")
        try store.transaction { try $0.eraseSubscriber(tenantId: tenant.tenantId, subscriberId: "zed", at: Date()) }
        let erased = DeviceWordBatcher.Entry(tenantId: tenant.tenantId, facts: [Self.word("zed", "r1/a")], erasures: directory)
        let phone = DeviceWordBatcher.Entry(tenantId: tenant.tenantId, facts: [Self.word("ann", "r2/a")], erasures: directory)
        let server = DeviceWordBatcher.Entry(tenantId: tenant.tenantId, facts: [Self.word("bo", "r3/a")])
        var recorded: [String] = []
        DeviceWordBatcher.settle([erased, phone, server]) { _, facts in
            recorded += facts.map(\.localId)
            return AcknowledgmentOutcome(acknowledged: facts.count)
        }
        XCTAssertEqual(try erased.result?.get(), DeviceWordAnswer(erasedSubscriber: "zed"))
        XCTAssertEqual(try phone.result?.get(), DeviceWordAnswer())
        XCTAssertEqual(try server.result?.get(), DeviceWordAnswer())
        XCTAssertEqual(recorded, ["r2/a", "r3/a"], "nothing of the erased subscriber's")
    }

    func testAnOutageFailsEveryRequestOfTheTransactionAndRecordsNothing() throws {
        let batcher = DeviceWordBatcher()
        XCTAssertThrowsError(try batcher.record(tenantId: "t", [Self.word("ann", "r1/a")]) { entries in
            DeviceWordBatcher.settle(entries) { _, _ in throw ServerError(.unavailable, "PostgreSQL is unreachable") }
        }) { error in
            XCTAssertEqual((error as? ServerError)?.code, .unavailable)
        }
        XCTAssertEqual(batcher.waitingCount, 0)
    }

    func testARecorderThatSettlesNothingFailsItsCallersInsteadOfHangingThem() throws {
        let batcher = DeviceWordBatcher()
        XCTAssertThrowsError(try batcher.record(tenantId: "t", [Self.word("ann", "r1/a")]) { _ in })
    }
}
