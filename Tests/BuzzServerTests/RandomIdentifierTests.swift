import BuzzCrypto
import XCTest

/// The identifiers the hot paths mint (run ids, message ids, `apns-id`s) stay random version 4
/// UUIDs: unguessable, unique, and readable by anything that parses a UUID.
final class RandomIdentifierTests: XCTestCase {
    func testIdentifiersAreVersion4UUIDsWithEveryRandomBitVarying() {
        let ids = (0..<2_000).map { _ in RandomIdentifier.uuid() }
        var seenOne = [Bool](repeating: false, count: 128), seenZero = [Bool](repeating: false, count: 128)
        for id in ids {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            XCTAssertEqual(bytes[6] >> 4, 4, "version 4")
            XCTAssertEqual(bytes[8] >> 6, 0b10, "RFC variant")
            for bit in 0..<128 {
                if bytes[bit / 8] & (0x80 >> (bit % 8)) != 0 { seenOne[bit] = true } else { seenZero[bit] = true }
            }
        }
        let fixed: Set<Int> = [48, 49, 50, 51, 64, 65]  // the version and variant bits
        for bit in 0..<128 where !fixed.contains(bit) {
            XCTAssertTrue(seenOne[bit] && seenZero[bit], "bit \(bit) never changed in 2,000 identifiers")
        }
        XCTAssertEqual(Set(ids).count, ids.count, "no identifier twice")
    }

    func testTheTextFormIsLowerCaseAndReadsBack() {
        let text = RandomIdentifier.text()
        XCTAssertEqual(text, text.lowercased())
        XCTAssertEqual(UUID(uuidString: text)?.uuidString.lowercased(), text)
        XCTAssertNotEqual(RandomIdentifier.text(), text)
    }
}
