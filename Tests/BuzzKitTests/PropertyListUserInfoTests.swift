import BuzzKitWire
import Foundation
import XCTest
@testable import BuzzKit

/// A plan's data may be any JSON, `null` included, but a local notification's user info must
/// be a property list (UNMutableNotificationContent.userInfo: "only property list objects";
/// `NSNull` is not one, and iOS refuses to archive the request). What the SDK hands iOS is
/// checked here with Foundation's own property-list encoder, and read back unchanged.
final class PropertyListUserInfoTests: XCTestCase {
    private func isPropertyList(_ object: [String: Any]) -> Bool {
        (try? PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)) != nil
    }

    func testPlanDataOfAnyShapeIsAPropertyListAndReadsBackTheSame() throws {
        let shapes: [[String: JSONValue]] = [
            ["bk": ["messageId": "m-1", "localId": "run/nudge", "data": ["coach": "Maya", "sets": 3, "heavy": true]]],
            ["bk": ["messageId": "m-1", "data": ["note": .null]]],
            ["bk": ["messageId": "m-1", "data": ["sets": [1, .null, 3], "deep": ["deeper": [["gone": .null]]]]]],
            ["bk": ["messageId": "m-1", "data": [:]], "other": .null],
        ]
        for members in shapes {
            let userInfo = JSONValue.foundationObject(members)
            XCTAssertTrue(isPropertyList(userInfo), "not a property list: \(members)")
            XCTAssertEqual(try JSONValue.members(userInfo: userInfo), members, "read back unchanged")
        }
    }

    func testWithoutANullTheUserInfoStaysAPlainDictionaryTheAppCanRead() throws {
        let userInfo = JSONValue.foundationObject(["bk": ["messageId": "m-1", "data": ["coach": "Maya"]]])
        let bk = try XCTUnwrap(userInfo["bk"] as? [String: Any])
        XCTAssertEqual((bk["data"] as? [String: Any])?["coach"] as? String, "Maya")
        XCTAssertNil(userInfo[JSONValue.jsonTextKey])
    }
}
