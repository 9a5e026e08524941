import BuzzKitWire
import Foundation

extension JSONValue {
    /// Converts a Foundation property list as APNs hands it to the app (`[AnyHashable: Any]`
    /// user info) into JSON members. Keys must be strings; values must be JSON values.
    public static func members(userInfo: [AnyHashable: Any]) throws -> [String: JSONValue] {
        // A local notification whose user info held a null keeps it as JSON text (see
        // ``foundationObject(_:)``).
        if userInfo.count == 1, let text = userInfo[jsonTextKey] as? String {
            do {
                return try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
            } catch {
                throw BuzzKitError(.invalidPayload, context: "userInfo", message: "the user info's JSON text could not be read: \(error)")
            }
        }
        var members: [String: JSONValue] = [:]
        for (key, value) in userInfo {
            guard let name = key.base as? String else {
                throw BuzzKitError(.invalidPayload, context: "userInfo", message: "a key is not a string: \(key)")
            }
            guard let member = JSONValue(foundation: value) else {
                throw BuzzKitError(.invalidPayload, context: "userInfo", message: "the user info is not a JSON object (\(name) holds \(type(of: value)))")
            }
            members[name] = member
        }
        return members
    }

    /// A Foundation value as `JSONSerialization` reads and writes it, converted directly (a
    /// phone holding 64 requests reads every one's user info each time it schedules a plan, so
    /// a trip through JSON text and `JSONDecoder` cost the SDK most of its time): `NSNull`,
    /// strings, numbers (an `NSNumber` of Objective-C type `c` is a boolean, as `JSONSerialization`
    /// makes `true` and `false` on Apple's platforms and on Linux), arrays and dictionaries with
    /// string keys. `nil` for anything else, or a number that is not finite.
    ///
    /// The Swift types ``foundationObject(_:)`` builds are recognised by their exact type
    /// first: a conditional cast of `[String: Any]` to `[AnyHashable: Any]`, or of an `Int` to
    /// `NSNumber`, copies or bridges the value, and cost the simulated fleet's main thread
    /// (where iOS calls the push callback) two fifths of its time.
    init?(foundation value: Any) {
        guard let converted = Self.read(value) else { return nil }
        self = converted
    }

    private static func read(_ value: Any) -> JSONValue? {
        let type = Swift.type(of: value)
        if type == String.self { return .string(value as! String) }
        if type == Bool.self { return .bool(value as! Bool) }
        if type == Int.self { return .number(.int(Int64(value as! Int))) }
        if type == Double.self { return double(value as! Double) }
        if type == [String: Any].self { return object(value as! [String: Any]) { $0 } }
        if type == [Any].self { return array(value as! [Any]) }
        // Anything else by cast: `NSNull`, `NSString`, `NSNumber`, `NSArray`, `NSDictionary`, ...
        switch value {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let number as NSNumber: return Self.number(number)
        case let items as [Any]: return array(items)
        case let members as [AnyHashable: Any]: return object(members) { $0.base as? String }
        default: return nil
        }
    }

    private static func array(_ items: [Any]) -> JSONValue? {
        var converted: [JSONValue] = []
        converted.reserveCapacity(items.count)
        for item in items {
            guard let value = read(item) else { return nil }
            converted.append(value)
        }
        return .array(converted)
    }

    /// `name` gives a key's string, or nil when it is not one (the object is then refused).
    private static func object<Key: Hashable>(_ members: [Key: Any], name: (Key) -> String?) -> JSONValue? {
        var converted: [String: JSONValue] = [:]
        converted.reserveCapacity(members.count)
        for (key, item) in members {
            guard let name = name(key), let value = read(item) else { return nil }
            converted[name] = value
        }
        return .object(converted)
    }

    /// A finite double, an integer when it is one exactly.
    private static func double(_ double: Double) -> JSONValue? {
        guard double.isFinite else { return nil }
        return .number(JSONNumber.exactInt64(double).map { .int($0) } ?? .double(double))
    }

    private static func number(_ number: NSNumber) -> JSONValue? {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "c"), UInt8(ascii: "B"):
            return .bool(number.boolValue)
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            return double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            let unsigned = number.uint64Value
            return .number(unsigned <= UInt64(Int64.max) ? .int(Int64(unsigned)) : .double(Double(unsigned)))
        default:
            return .number(.int(number.int64Value))
        }
    }

    /// The one key of a local notification's user info kept as JSON text.
    public static let jsonTextKey = "bk.json"

    /// Converts JSON members into a Foundation dictionary for `UNNotificationContent.userInfo`,
    /// which must be a property list: `NSNull` is not one, and iOS refuses (or fails to archive)
    /// a request whose user info holds it ("The userInfo dictionary must contain only property
    /// list objects", UNMutableNotificationContent.userInfo). So members with a `null` anywhere
    /// are kept whole as JSON text under ``jsonTextKey``, read back by ``members(userInfo:)``;
    /// any other shape stays a plain dictionary the app can read as it is.
    public static func foundationObject(_ members: [String: JSONValue]) -> [String: Any] {
        if members.values.contains(where: \.holdsNull) {
            guard let data = try? JSONEncoder().encode(members) else { return [:] }
            return [jsonTextKey: String(decoding: data, as: UTF8.self)]
        }
        return members.mapValues(\.foundationValue)
    }

    /// The value as a property-list object (no `null` inside: see ``foundationObject(_:)``).
    var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .number(.int(let value)): return Int(exactly: value) ?? Double(value)
        case .number(.double(let value)): return value
        case .string(let value): return value
        case .array(let items): return items.map(\.foundationValue)
        case .object(let members): return members.mapValues(\.foundationValue)
        }
    }

    /// Whether a `null` appears anywhere in the value.
    var holdsNull: Bool {
        switch self {
        case .null: return true
        case .bool, .number, .string: return false
        case .array(let items): return items.contains(where: \.holdsNull)
        case .object(let members): return members.values.contains(where: \.holdsNull)
        }
    }
}
