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

/// The user info iOS hands over is read directly, not through JSON text: every shape reads
/// exactly as `JSONSerialization` and `JSONDecoder` read it, booleans apart from numbers.
final class UserInfoConversionTests: XCTestCase {
    private func throughJSONText(_ object: [String: Any]) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: JSONSerialization.data(withJSONObject: object))
    }

    func testAPushBodyReadsTheSameAsThroughJSONText() throws {
        let body = #"{"aps":{"content-available":1},"t":true,"f":false,"one":1,"zero":0,"half":0.5,"two":2.0,"big":12345678901234,"huge":1e20,"neg":-7,"s":"x","list":[true,1,"a",[0]],"deep":{"k":{"v":false}}}"#
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let members = try JSONValue.members(userInfo: object)
        XCTAssertEqual(members, try throughJSONText(object))
        XCTAssertEqual(members["t"], .bool(true))
        XCTAssertEqual(members["one"], .number(.int(1)), "a 1 stays a number")
        XCTAssertEqual(members["list"], [.bool(true), 1, "a", [0]])
    }

    func testSwiftValuesReadTheSameAsThroughJSONText() throws {
        let object: [String: Any] = ["b": true, "i": 3, "d": 2.5, "i64": Int64(1) << 40, "u": UInt(7), "f": Float(1.5),
                                     "a": [false, 0], "o": ["x": "y"] as [String: Any]]
        let members = try JSONValue.members(userInfo: object)
        XCTAssertEqual(members, try throughJSONText(object))
        XCTAssertEqual(members["b"], .bool(true))
        XCTAssertEqual(members["a"], [.bool(false), 0])
    }

    func testWhatIsNotJSONIsRefused() {
        XCTAssertThrowsError(try JSONValue.members(userInfo: ["d": Date()]))
        XCTAssertThrowsError(try JSONValue.members(userInfo: ["n": Double.nan]))
        XCTAssertThrowsError(try JSONValue.members(userInfo: ["o": [1: "numeric key"]]))
    }
}
