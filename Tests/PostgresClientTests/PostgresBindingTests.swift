import Foundation
import XCTest
@testable import PostgresClient

/// The text a parameter is sent as: what PostgreSQL parses back into the stored value.
final class PostgresBindingTests: XCTestCase {
    func testBytesBindInByteaHexFormat() {
        XCTAssertEqual(Data().postgresText, "\\x")
        XCTAssertEqual(Data([0x00, 0x0f, 0xab, 0xff, 0x7b]).postgresText, "\\x000fabff7b")
        let body = Data(#"{"runId":"r","body":"6:00 with Maya."}"#.utf8)
        XCTAssertEqual(body.postgresText, "\\x" + body.map { String(format: "%02x", $0) }.joined())
        // In an array each element is quoted and its backslash escaped.
        XCTAssertEqual([Data([0x01]), Data([0xfe])].postgresText, #"{"\\x01","\\xfe"}"#)
    }

    func testJSONDocumentsJoinWithTheRecordSeparatorOnly() {
        let states = [#"{"status":"waiting","title":"say \"hi\"\n"}"#, "[1,2]", "{}"]
        let joined = PostgresJSONTexts(states).postgresText
        XCTAssertEqual(joined.split(separator: "\u{1E}", omittingEmptySubsequences: false).map(String.init), states)
        // Nothing is escaped: a 1.3 KB state goes as it is.
        XCTAssertEqual(joined.utf8.count, states.reduce(0) { $0 + $1.utf8.count } + 2)
        XCTAssertEqual(PostgresJSONTexts([]).postgresText, "")
        XCTAssertEqual(PostgresJSONTexts.separatorCode, 0x1E)
    }
}
