import BuzzKitWire
import BuzzServerCore
import BuzzStore

/// A JSON object being validated, with the path of each member for error messages.
public struct InputFields {
    public let members: [String: JSONValue]
    public let path: String

    public init(_ value: JSONValue, path: String, allowed: Set<String>) throws {
        guard case .object(let members) = value else {
            throw ServerError.input("\(path.isEmpty ? "the body" : path) must be a JSON object, got \(value.typeDescription)",
                                       reason: "invalid_type", field: path.isEmpty ? nil : path)
        }
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw ServerError.input("unknown field \(Self.join(path, key)); allowed: \(allowed.sorted().joined(separator: ", "))",
                                       reason: "unknown_field", field: Self.join(path, key))
        }
        self.members = members
        self.path = path
    }

    public static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public func field(_ key: String) -> String { Self.join(path, key) }

    public func has(_ key: String) -> Bool { members[key] != nil }

    /// A required (or optional) string of 1…`maxLength` bytes of UTF-8 with no NUL: the limit
    /// counts what AMQP and PostgreSQL store, and PostgreSQL's text cannot hold NUL (a driver
    /// would cut the value there).
    public func string(_ key: String, required: Bool = true, maxLength: Int = 256) throws -> String? {
        guard let value = members[key], !value.isNull else {
            if required { throw ServerError.input("\(field(key)) is required", reason: "missing_field", field: field(key)) }
            return nil
        }
        guard case .string(let text) = value else {
            throw ServerError.input("\(field(key)) must be a string, got \(value.typeDescription)", reason: "invalid_type", field: field(key))
        }
        guard !text.isEmpty, text.utf8.count <= maxLength else {
            throw ServerError.input("\(field(key)) must be 1 to \(maxLength) bytes of UTF-8, got \(text.utf8.count)", reason: "invalid_value", field: field(key))
        }
        guard !text.utf8.contains(0) else {
            throw ServerError.input("\(field(key)) may not contain NUL (\\u0000)", reason: "invalid_value", field: field(key))
        }
        return text
    }

    public func requiredString(_ key: String, maxLength: Int = 256) throws -> String {
        try string(key, required: true, maxLength: maxLength)!
    }

    public func bool(_ key: String) throws -> Bool? {
        guard let value = members[key], !value.isNull else { return nil }
        guard case .bool(let flag) = value else {
            throw ServerError.input("\(field(key)) must be true or false, got \(value.typeDescription)", reason: "invalid_type", field: field(key))
        }
        return flag
    }

    /// An optional object (JSON `{}`), returned as its members.
    public func object(_ key: String) throws -> [String: JSONValue]? {
        guard let value = members[key], !value.isNull else { return nil }
        guard case .object(let members) = value else {
            throw ServerError.input("\(field(key)) must be an object, got \(value.typeDescription)", reason: "invalid_type", field: field(key))
        }
        return members
    }
}
