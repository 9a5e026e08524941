import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The plan book and the event queue are saved on every change with a hand-written writer,
/// not `JSONEncoder`. A phone updated from a version that saved them with `JSONEncoder` reads
/// its old state, and a phone that saves with the writer reads back the same state: nothing
/// of what the person was promised is lost across the update or a restart.
final class PersistedStateFormatTests: XCTestCase {
    private static let zone = TimeZone(identifier: "Europe/Berlin")!

    private func sampleBook() -> PlanBook {
        var book = PlanBook()
        let at = Date(timeIntervalSinceReferenceDate: 786_412_800.123_456)
        let first = LocalPlan(id: "run-1/a", messageId: "m-1", fireAt: FireAt(year: 2026, month: 12, day: 4, hour: 7, minute: 0, second: 0),
                              title: "Leg day \"heavy\"", body: "Line\nbreak, ünïcode 🏋️", deepLink: "gym://legs",
                              data: ["n": .number(.int(3)), "nested": .object(["ok": .bool(true), "none": .null])],
                              cancelOn: ["workout.completed", "workout.moved"])
        var confirmed = PlanRecord(plan: first, acknowledgmentEventId: "e-1", receivedAt: at, receivedZone: Self.zone)
        confirmed.acknowledgmentConfirmed = true
        confirmed.state = .parked
        confirmed.releasedAt = at.addingTimeInterval(12.5)
        book.insert(confirmed)
        let second = LocalPlan(id: "run-2/b", messageId: "m-2", fireAt: FireAt(year: 2026, month: 12, day: 5, hour: 8, minute: 30, second: 15),
                               title: "T", body: "B", cancelOn: ["workout.completed"])
        var uncertain = PlanRecord(plan: second, acknowledgmentEventId: "e-2", receivedAt: at.addingTimeInterval(0.1))
        uncertain.acknowledgmentUncertain = true
        uncertain.acknowledgmentEventId = nil
        uncertain.state = .held
        book.insert(uncertain)
        book.addTombstone(CancelTombstone(id: "run-3", matchesPrefix: true, recordedAt: at.addingTimeInterval(-1)))
        book.addTombstone(CancelTombstone(id: "run-4/c", matchesPrefix: false, recordedAt: at))
        return book
    }

    private func sampleQueue() -> EventQueue {
        var queue = EventQueue()
        let at = Date(timeIntervalSince1970: 1_796_000_000.25)
        _ = queue.append(BuzzEvent(id: "e-1", event: BuzzEvent.localScheduled, subscriberId: "sub-1",
                                   properties: ["localId": .string("run-1/a"), "messageId": .string("m-1")], timestamp: at), maximum: 10)
        _ = queue.append(BuzzEvent(id: "e-2", event: "workout.completed", subscriberId: "sub-1",
                                   properties: ["weight": .number(.double(82.5))], timestamp: at), maximum: 10)
        return queue
    }

    private func foundationEncoded<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    func testTheBookSavedByHandReadsBackAsTheSameBook() throws {
        let book = sampleBook()
        let store = InMemoryKeyValueStore()
        try store.setJSON(book, forKey: "plans")
        XCTAssertEqual(try store.value(PlanBook.self, forKey: "plans"), book)
    }

    func testTheBookIsTheSameJSONJSONEncoderWrote() throws {
        let book = sampleBook()
        let handWritten = try JSONParser.parse(Data(book.jsonBytes()))
        let encoded = try JSONParser.parse(try foundationEncoded(book))
        XCTAssertEqual(handWritten, encoded, "the same keys and values, so older saved books read back")
    }

    func testABookSavedByAnEarlierVersionIsReadAndSavedAgainUnchanged() throws {
        let book = sampleBook()
        let store = InMemoryKeyValueStore()
        try store.setData(try foundationEncoded(book), forKey: "plans")
        let read = try XCTUnwrap(try store.value(PlanBook.self, forKey: "plans"))
        XCTAssertEqual(read, book)
        try store.setJSON(read, forKey: "plans")
        XCTAssertEqual(try store.value(PlanBook.self, forKey: "plans"), book)
    }

    func testTheQueueSavedByHandReadsBackAsTheSameQueue() throws {
        let queue = sampleQueue()
        let store = InMemoryKeyValueStore()
        try store.setJSON(queue, forKey: "events")
        XCTAssertEqual(try store.value(EventQueue.self, forKey: "events"), queue)
        XCTAssertEqual(try JSONParser.parse(Data(queue.jsonBytes())), try JSONParser.parse(try foundationEncoded(queue)))
    }

    func testDatesKeepEveryDigitThroughTheWriter() throws {
        for seconds in [0, -1.5, 786_412_800.123_456_7, 1e-7, 4_102_444_800.999_999] {
            var writer = JSONWriter()
            writer.double(seconds)
            let read = try JSONParser.parse(Data(writer.bytes))
            guard case .number(let number) = read else { return XCTFail("\(seconds) was written as \(writer.string)") }
            XCTAssertEqual(number.doubleValue, seconds, writer.string)
        }
        var writer = JSONWriter()
        writer.double(.nan)
        XCTAssertEqual(writer.string, "null")
    }
}
