import Foundation
import XCTest
@testable import PostgresClient

final class PostgresQueryTests: XCTestCase {
    func testInterpolatedValuesBecomeBinds() {
        let id = 42
        let name = "Robert'); DROP TABLE runs;--"
        let query: PostgresQuery = "SELECT * FROM runs WHERE id = \(id) AND name = \(name)"
        XCTAssertEqual(query.sql, "SELECT * FROM runs WHERE id = $1 AND name = $2")
        XCTAssertEqual(query.binds, [.text("42"), .text(name)])
    }

    func testOptionalNilBindsNull() {
        let missing: String? = nil
        let query: PostgresQuery = "UPDATE t SET v = \(missing)"
        XCTAssertEqual(query.sql, "UPDATE t SET v = $1")
        XCTAssertEqual(query.binds, [nil])
    }

    func testFragmentsAreRenumbered() {
        let filter: PostgresQuery = "tenant_id = \("t1") AND status = \("waiting")"
        let query: PostgresQuery = "SELECT id FROM runs WHERE id > \(5) AND \(filter) LIMIT \(10)"
        XCTAssertEqual(query.sql, "SELECT id FROM runs WHERE id > $1 AND tenant_id = $2 AND status = $3 LIMIT $4")
        XCTAssertEqual(query.binds, [.text("5"), .text("t1"), .text("waiting"), .text("10")])
    }

    func testAppendRenumbers() {
        var query: PostgresQuery = "SELECT 1 WHERE a = \(1)"
        query.append(" AND b = \(2) AND c = \(3)")
        XCTAssertEqual(query.sql, "SELECT 1 WHERE a = $1 AND b = $2 AND c = $3")
    }

    func testUnsafeRawIsVerbatim() {
        let query: PostgresQuery = "SELECT * FROM \(unsafeRaw: "test_schema.runs") WHERE id = \(1)"
        XCTAssertEqual(query.sql, "SELECT * FROM test_schema.runs WHERE id = $1")
        XCTAssertEqual(query.binds.count, 1)
    }

    /// Arrays of text, uuid, timestamptz, int, bool and bytea go in PostgreSQL's binary array
    /// form; other arrays, and text holding a NUL (refused before anything runs), as text.
    func testArraysOfTextIdsAndTimesBindInBinary() {
        let header: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 0]
        XCTAssertEqual(["é", ""].postgresBind, .binary(header + [0, 0, 0, 25, 0, 0, 0, 2, 0, 0, 0, 1,
                                                                 0, 0, 0, 2, 0xc3, 0xa9, 0, 0, 0, 0]))
        XCTAssertEqual([String]().postgresBind, .binary([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25]))
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        XCTAssertEqual([id].postgresBind, .binary(header + [0, 0, 0x0b, 0x86, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 16]
                                                  + [0xe6, 0x21, 0xe1, 0xf8, 0xc3, 0x6c, 0x49, 0x5a, 0x93, 0xfc, 0x0c, 0x24, 0x7a, 0x3e, 0x6e, 0x5f]))
        // 2000-01-01T00:00:01.5Z is 1,500,000 µs after PostgreSQL's epoch; a day before it, negative.
        XCTAssertEqual([Date(timeIntervalSince1970: 946_684_801.5)].postgresBind,
                       .binary(header + [0, 0, 0x04, 0xa0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0x16, 0xe3, 0x60]))
        XCTAssertEqual([Date(timeIntervalSince1970: 946_598_400)].postgresBind,
                       .binary(header + [0, 0, 0x04, 0xa0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 8] + [0xff, 0xff, 0xff, 0xeb, 0xe2, 0x28, 0xa0, 0x00]))
        // int (4 bytes, big-endian), bool (one byte) and bytea (the bytes); an Int beyond 32 bits
        // goes as text, which the server refuses as out of range for `int`.
        XCTAssertEqual([1, -2].postgresBind, .binary(header + [0, 0, 0, 23, 0, 0, 0, 2, 0, 0, 0, 1,
                                                               0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xfe]))
        XCTAssertEqual([1, 1 << 40].postgresBind, .text("{\"1\",\"1099511627776\"}"))
        XCTAssertEqual([true, false].postgresBind, .binary(header + [0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0]))
        XCTAssertEqual([Data([0x00, 0xab])].postgresBind, .binary(header + [0, 0, 0, 17, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0xab]))
        XCTAssertEqual([1.5].postgresBind, .text("{\"1.5\"}"))
        XCTAssertEqual(["a\u{0}b"].postgresBind, .text("{\"a\u{0}b\"}"))
        XCTAssertEqual("plain".postgresBind, .text("plain"))
    }

    /// A binary array goes as such only where the statement casts it to its own type; anywhere
    /// else PostgreSQL infers another type from the statement, so it goes as text.
    func testABinaryArrayNeedsACastToItsOwnType() {
        let ids = ["e621e1f8-c36c-495a-93fc-0c247a3e6e5f"]
        let cast: PostgresQuery = "SELECT * FROM unnest(\(ids)::text[], \([UUID()])::uuid[]) AS u(a, b)"
        XCTAssertEqual(cast.binds.map { if case .binary? = $0 { true } else { false } }, [true, true])
        let other: PostgresQuery = "SELECT * FROM unnest(\(ids)::uuid[]) AS u(a) WHERE a = ANY(\([UUID]())) OR a::text = ANY(\(ids))"
        XCTAssertEqual(other.binds, [.text(ids.postgresText), .text("{}"), .text(ids.postgresText)])
        var appended: PostgresQuery = "SELECT 1 WHERE \(1) = 1"
        appended.append("AND x = ANY(\(ids)::text[])")
        XCTAssertEqual(appended.binds.last, ids.postgresBind)
    }

    func testBindEncodings() {
        XCTAssertEqual(true.postgresText, "t")
        XCTAssertEqual(Double.infinity.postgresText, "Infinity")
        XCTAssertEqual(Data([0x00, 0xab, 0xff]).postgresText, "\\x00abff")
        XCTAssertEqual(["a", "b\"c", "d\\e"].postgresText, #"{"a","b\"c","d\\e"}"#)
        XCTAssertEqual(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!.postgresText, "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
    }

    func testErrorDescriptionHasStatementButNoValues() {
        let secret = "s3cr3t-value"
        let query: PostgresQuery = "SELECT * FROM keys WHERE key = \(secret)"
        let error = PostgresError(.server, "boom", sqlState: "42P01", statement: query.sql)
        XCTAssertTrue(error.description.contains("$1"))
        XCTAssertFalse(error.description.contains(secret))
        XCTAssertTrue(error.description.contains("42P01"))
    }
}
