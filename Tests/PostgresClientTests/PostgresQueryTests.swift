import Foundation
import XCTest
@testable import PostgresClient

final class PostgresQueryTests: XCTestCase {
    func testInterpolatedValuesBecomeBinds() {
        let id = 42
        let name = "Robert'); DROP TABLE runs;--"
        let query: PostgresQuery = "SELECT * FROM runs WHERE id = \(id) AND name = \(name)"
        XCTAssertEqual(query.sql, "SELECT * FROM runs WHERE id = $1 AND name = $2")
        XCTAssertEqual(query.binds, ["42", name])
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
        XCTAssertEqual(query.binds, ["5", "t1", "waiting", "10"])
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
