import XCTest
@testable import AMQPClient

/// The frames a consumer sends for its settlements: one `multiple` ack for a batch settled in
/// order, and never an ack that would also settle a delivery the app has not finished.
final class SettlementCoalescerTests: XCTestCase {
    typealias Frame = SettlementCoalescer.Frame

    private func coalescer(delivering tags: ClosedRange<UInt64>) -> SettlementCoalescer {
        var coalescer = SettlementCoalescer()
        for tag in tags { coalescer.delivered(tag) }
        return coalescer
    }

    func testABatchAckedFromTheOldestIsOneFrame() {
        var coalescer = coalescer(delivering: 1...300)
        let frames = coalescer.frames(for: (1...300).map { ($0, .ack) })
        XCTAssertEqual(frames, [Frame(tag: 300, outcome: .ack, multiple: true)])
        XCTAssertEqual(coalescer.outstandingCount, 0)
    }

    func testOneAckIsNotMultiple() {
        var coalescer = coalescer(delivering: 1...3)
        XCTAssertEqual(coalescer.frames(for: [(1, .ack)]), [Frame(tag: 1, outcome: .ack, multiple: false)])
        XCTAssertEqual(coalescer.outstandingCount, 2)
    }

    func testAckedBehindAnUnfinishedDeliveryGoOneByOne() {
        // Delivery 1 is still being worked on: a multiple ack of 3 would settle it too.
        var coalescer = coalescer(delivering: 1...3)
        let frames = coalescer.frames(for: [(3, .ack), (2, .ack)])
        XCTAssertEqual(frames, [Frame(tag: 2, outcome: .ack, multiple: false), Frame(tag: 3, outcome: .ack, multiple: false)])
        XCTAssertEqual(coalescer.outstandingCount, 1)
        // Once 1 is acked, the run from the oldest is just 1 (2 and 3 went already).
        XCTAssertEqual(coalescer.frames(for: [(1, .ack)]), [Frame(tag: 1, outcome: .ack, multiple: false)])
        XCTAssertEqual(coalescer.outstandingCount, 0)
        // And the next batch coalesces again.
        for tag in UInt64(4)...6 { coalescer.delivered(tag) }
        XCTAssertEqual(coalescer.frames(for: [(4, .ack), (5, .ack), (6, .ack)]), [Frame(tag: 6, outcome: .ack, multiple: true)])
    }

    func testANackStopsTheRunAndIsSentOnItsOwn() {
        var coalescer = coalescer(delivering: 1...5)
        let frames = coalescer.frames(for: [(1, .ack), (2, .ack), (3, .nack(requeue: true)), (4, .ack), (5, .reject(requeue: false))])
        XCTAssertEqual(frames, [Frame(tag: 2, outcome: .ack, multiple: true),
                                Frame(tag: 3, outcome: .nack(requeue: true), multiple: false),
                                Frame(tag: 4, outcome: .ack, multiple: false),
                                Frame(tag: 5, outcome: .reject(requeue: false), multiple: false)])
        XCTAssertEqual(coalescer.outstandingCount, 0)
    }

    func testTagsSettledOutOfOrderAreSkippedWhenTheRunReachesThem() {
        var coalescer = coalescer(delivering: 1...6)
        _ = coalescer.frames(for: [(2, .nack(requeue: true)), (4, .ack)])
        // 1 and 3 acked now: the run covers 1…4 (2 and 4 already settled) and stops before 5.
        XCTAssertEqual(coalescer.frames(for: [(3, .ack), (1, .ack)]), [Frame(tag: 3, outcome: .ack, multiple: true)])
        XCTAssertEqual(coalescer.outstandingCount, 2)
        XCTAssertEqual(coalescer.frames(for: [(6, .ack), (5, .ack)]), [Frame(tag: 6, outcome: .ack, multiple: true)])
        XCTAssertEqual(coalescer.outstandingCount, 0)
    }

    func testALongStreamStaysSmallAndCorrect() {
        // Many rounds with one straggler each: memory is compacted and the straggler is never
        // covered by a multiple ack before it is settled.
        var coalescer = SettlementCoalescer()
        var next: UInt64 = 1, straggler: UInt64?
        for _ in 0..<200 {
            let batch = (next..<next + 50).map { $0 }
            batch.forEach { coalescer.delivered($0) }
            next += 50
            var settle = batch.dropFirst().map { (tag: $0, outcome: AMQPConsumer.Settlement.ack) }
            if let previous = straggler { settle.append((previous, .ack)) }
            straggler = batch.first
            for frame in coalescer.frames(for: settle) where frame.multiple {
                XCTAssertLessThan(frame.tag, straggler!, "a multiple ack must not reach the unsettled straggler")
            }
        }
        XCTAssertEqual(coalescer.outstandingCount, 1)
        XCTAssertEqual(coalescer.frames(for: [(straggler!, .ack)]).count, 1)
        XCTAssertEqual(coalescer.outstandingCount, 0)
    }
}
