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
        var object: [String: Any] = [:]
        for (key, value) in userInfo {
            guard let name = key.base as? String else {
                throw BuzzKitError(.invalidPayload, context: "userInfo", message: "a key is not a string: \(key)")
            }
            object[name] = value
        }
        guard JSONSerialization.isValidJSONObject(object) else {
            throw BuzzKitError(.invalidPayload, context: "userInfo", message: "the user info is not a JSON object")
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: object)
            return try JSONDecoder().decode([String: JSONValue].self, from: data)
        } catch {
            throw BuzzKitError(.invalidPayload, context: "userInfo", message: "the user info could not be read: \(error)")
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
        guard let data = try? JSONEncoder().encode(members) else { return [:] }
        if members.values.contains(where: \.holdsNull) { return [jsonTextKey: String(decoding: data, as: UTF8.self)] }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
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
