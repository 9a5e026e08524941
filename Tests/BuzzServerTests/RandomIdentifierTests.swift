import BuzzCrypto
import XCTest

/// The identifiers the hot paths mint (message ids, `apns-id`s) stay random version 4 UUIDs, and
/// run ids time-ordered version 7 ones: unguessable, unique, and readable by anything that
/// parses a UUID.
final class RandomIdentifierTests: XCTestCase {
    func testIdentifiersAreVersion4UUIDsWithEveryRandomBitVarying() {
        assertRandom(ids: (0..<2_000).map { _ in RandomIdentifier.uuid() }, version: 4, bits: 0..<128)
    }

    /// Every id has the version and the RFC variant; every bit of `bits` but those two fields
    /// is seen both set and clear; no id comes twice.
    private func assertRandom(ids: [UUID], version: UInt8, bits: Range<Int>, file: StaticString = #filePath, line: UInt = #line) {
        var seenOne = [Bool](repeating: false, count: 128), seenZero = [Bool](repeating: false, count: 128)
        for id in ids {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            XCTAssertEqual(bytes[6] >> 4, version, "version", file: file, line: line)
            XCTAssertEqual(bytes[8] >> 6, 0b10, "RFC variant", file: file, line: line)
            for bit in bits {
                if bytes[bit / 8] & (0x80 >> (bit % 8)) != 0 { seenOne[bit] = true } else { seenZero[bit] = true }
            }
        }
        let fixed: Set<Int> = [48, 49, 50, 51, 64, 65]  // the version and variant bits
        for bit in bits where !fixed.contains(bit) {
            XCTAssertTrue(seenOne[bit] && seenZero[bit], "bit \(bit) never changed in \(ids.count) identifiers", file: file, line: line)
        }
        XCTAssertEqual(Set(ids).count, ids.count, "no identifier twice", file: file, line: line)
    }

    func testTheTextFormIsLowerCaseAndReadsBack() {
        let text = RandomIdentifier.text()
        XCTAssertEqual(text, text.lowercased())
        XCTAssertEqual(UUID(uuidString: text)?.uuidString.lowercased(), text)
        XCTAssertNotEqual(RandomIdentifier.text(), text)
    }

    func testTimeOrderedIdentifiersSortByTheirMillisecondAndKeepTheRestRandom() throws {
        let base = Date(timeIntervalSince1970: 1_796_000_000.1235)  // half a millisecond in: no rounding at the edge
        let ids = (0..<2_000).map { RandomIdentifier.timeOrdered(at: base.addingTimeInterval(Double($0 / 100) * 0.001)) }
        assertRandom(ids: ids, version: 7, bits: 48..<128)
        // The first 48 bits are the Unix milliseconds, big-endian: 1796000000123 = 0x01a2_29f1_287b.
        XCTAssertEqual(ids[0].uuidString.lowercased().prefix(13), "01a229f1-287b")
        XCTAssertEqual(ids[1_999].uuidString.lowercased().prefix(13), "01a229f1-288e", "19 ms later")
        // Each id sorts before an id of the next millisecond, as text and in PostgreSQL's uuid order (bytes).
        for (earlier, later) in zip(ids.dropLast(100), ids.dropFirst(100)) {
            XCTAssertLessThan(earlier.uuidString.lowercased(), later.uuidString.lowercased())
        }
    }
}
