import Foundation
import XCTest
@testable import PostgresClient

final class PostgresDecodingTests: XCTestCase {
    func testTimestampRoundTripKeepsMicroseconds() throws {
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_796_029_200.123456),
                     Date(timeIntervalSince1970: -86_400.5), Date(timeIntervalSince1970: 4_102_444_800)]
        for date in dates {
            let text = PostgresTimestamp.format(date)
            let parsed = try XCTUnwrap(PostgresTimestamp.parse(text), text)
            XCTAssertEqual(parsed.timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 0.000001, text)
        }
        XCTAssertEqual(PostgresTimestamp.format(Date(timeIntervalSince1970: 1_796_115_600)), "2026-12-01 09:00:00.000000+00")
    }

    func testTimestampParsesServerOutputForms() throws {
        let expected = Date(timeIntervalSince1970: 1_796_115_600)
        for text in ["2026-12-01 09:00:00+00", "2026-12-01 10:00:00+01", "2026-12-01T09:00:00Z",
                     "2026-12-01 04:30:00-04:30", "2026-12-01 09:00:00.000+00:00"] {
            XCTAssertEqual(PostgresTimestamp.parse(text), expected, text)
        }
        XCTAssertEqual(PostgresTimestamp.parse("2026-12-01 09:00:00.5+00")?.timeIntervalSince1970, 1_796_115_600.5)
        XCTAssertNil(PostgresTimestamp.parse("2026-12-01"))
        XCTAssertNil(PostgresTimestamp.parse("2026-12-01 09:00:00 garbage"))
    }

    func testNullDecodesOnlyAsOptional() throws {
        XCTAssertNil(try Int?.decode(postgresText: nil, column: "c"))
        XCTAssertEqual(try Int?.decode(postgresText: "7", column: "c"), 7)
        XCTAssertThrowsError(try Int.decode(postgresText: nil, column: "c")) { error in
            XCTAssertEqual((error as? PostgresError)?.code, .decoding)
        }
        XCTAssertThrowsError(try Int.decode(postgresText: "seven", column: "c"))
    }

    func testArrayLiteralParsing() throws {
        XCTAssertEqual(PostgresArrayLiteral.parse("{}")!, [])
        XCTAssertEqual(PostgresArrayLiteral.parse("{a,b}")!, ["a", "b"])
        XCTAssertEqual(PostgresArrayLiteral.parse(#"{"a,b","c\"d",NULL,"NULL"}"#)!, ["a,b", "c\"d", nil, "NULL"])
        XCTAssertNil(PostgresArrayLiteral.parse("{{1,2},{3,4}}"))
        XCTAssertNil(PostgresArrayLiteral.parse("a,b"))
        XCTAssertEqual(try [Int].decode(postgresText: "{1,2,3}", column: "c"), [1, 2, 3])
    }

    func testByteaAndBoolDecoding() throws {
        XCTAssertEqual(try Data.decode(postgresText: "\\x00abff", column: "c"), Data([0, 0xab, 0xff]))
        XCTAssertEqual(try Bool.decode(postgresText: "t", column: "c"), true)
        XCTAssertThrowsError(try Bool.decode(postgresText: "yes", column: "c"))
    }
}

final class UUIDTextTests: XCTestCase {
    func testFastTextMatchesFoundation() {
        for _ in 0..<1000 {
            let id = UUID()
            XCTAssertEqual(id.lowercasedText, id.uuidString.lowercased())
            XCTAssertEqual(UUID(fastText: id.uuidString), id)
            XCTAssertEqual(UUID(fastText: id.lowercasedText), id)
        }
        XCTAssertNil(UUID(fastText: "not-a-uuid"))
        XCTAssertNil(UUID(fastText: "e621e1f8c36c495a93fc0c247a3e6e5f"))
        XCTAssertNil(UUID(fastText: "e621e1f8-c36c-495a-93fc-0c247a3e6e5fa"))
        XCTAssertNil(UUID(fastText: "g621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
    }

    func testUUIDByteOrderIsPostgreSQLsOrder() {
        // PostgreSQL orders uuid by its bytes, i.e. by the lower-case text.
        let ids = (0..<500).map { _ in UUID() } + [UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
                                                   UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000000")!,
                                                   UUID(uuidString: "00000000-0000-0000-FFFF-000000000000")!]
        XCTAssertEqual(ids.sortedByBytes().map(\.lowercasedText), ids.map(\.lowercasedText).sorted())
        let id = UUID()
        XCTAssertFalse(UUID.precedes(id, id))
    }
}
