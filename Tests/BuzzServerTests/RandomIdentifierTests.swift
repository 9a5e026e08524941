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

    /// A run named after its event: the same parts name the same UUID, any other parts another.
    func testADerivedIdentifierIsTheSameForTheSameNameOnly() {
        let id = DerivedIdentifier.uuid("t_1", "e-7", "leg-day")
        XCTAssertEqual(DerivedIdentifier.uuid("t_1", "e-7", "leg-day"), id)
        // SHA-256 of "t_1\0e-7\0leg-day", with the version (8) and variant bits set.
        XCTAssertEqual(id.uuidString.lowercased(), "1c0cd0e7-3605-872f-b0ff-22ce1cf1515f")
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        XCTAssertEqual(bytes[6] >> 4, 8, "version 8")
        XCTAssertEqual(bytes[8] >> 6, 0b10, "RFC variant")
        XCTAssertNotEqual(DerivedIdentifier.uuid("t_2", "e-7", "leg-day"), id, "another tenant")
        XCTAssertNotEqual(DerivedIdentifier.uuid("t_1", "e-8", "leg-day"), id, "another event")
        XCTAssertNotEqual(DerivedIdentifier.uuid("t_1", "e-7", "arm-day"), id, "another workflow")
        XCTAssertNotEqual(DerivedIdentifier.uuid("t_1e", "-7", "leg-day"), id, "the parts are kept apart")
    }
}
