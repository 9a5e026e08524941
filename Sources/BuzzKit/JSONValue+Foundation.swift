import BuzzKitWire
import Foundation

extension JSONValue {
    /// Converts a Foundation property list as APNs hands it to the app (`[AnyHashable: Any]`
    /// user info) into JSON members. Keys must be strings; values must be JSON values.
    public static func members(userInfo: [AnyHashable: Any]) throws -> [String: JSONValue] {
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

    /// Converts JSON members into a Foundation dictionary (for `UNNotificationContent.userInfo`).
    public static func foundationObject(_ members: [String: JSONValue]) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(members),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }
}
