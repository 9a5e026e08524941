import BuzzKitWire
import Foundation
import HTTPServer

/// Strict reading of a JSON request body: every problem becomes a 400 that names the field.
struct JSONBody {
    let value: JSONValue

    /// Parses the body: invalid UTF-8, malformed JSON and an empty body are refused.
    init(_ request: HTTPRequest) throws {
        guard !request.body.isEmpty else {
            throw HTTPError.badRequest("the request needs a JSON body", code: "empty_body")
        }
        guard String(data: request.body, encoding: .utf8) != nil else {
            throw HTTPError.badRequest("the body is not valid UTF-8", code: "invalid_utf8")
        }
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: request.body)
        } catch {
            throw HTTPError.badRequest("the body is not valid JSON; check quotes, commas and brackets", code: "invalid_json")
        }
    }

    init(value: JSONValue) { self.value = value }

    /// The body as an object whose keys are all in `allowed`.
    func object(_ path: String = "", allowed: Set<String>) throws -> Fields {
        try Fields(value, path: path, allowed: allowed)
    }
}

/// A JSON object being validated, with the path of each member for error messages.
struct Fields {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String, allowed: Set<String>) throws {
        guard case .object(let members) = value else {
            throw HTTPError.badRequest("\(path.isEmpty ? "the body" : path) must be a JSON object, got \(value.typeDescription)",
                                       code: "invalid_type", field: path.isEmpty ? nil : path)
        }
        for key in members.keys.sorted() where !allowed.contains(key) {
            throw HTTPError.badRequest("unknown field \(Self.join(path, key)); allowed: \(allowed.sorted().joined(separator: ", "))",
                                       code: "unknown_field", field: Self.join(path, key))
        }
        self.members = members
        self.path = path
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func field(_ key: String) -> String { Self.join(path, key) }

    func has(_ key: String) -> Bool { members[key] != nil }

    /// A required (or optional) string of 1…`maxLength` characters.
    func string(_ key: String, required: Bool = true, maxLength: Int = 256) throws -> String? {
        guard let value = members[key], !value.isNull else {
            if required { throw HTTPError.badRequest("\(field(key)) is required", code: "missing_field", field: field(key)) }
            return nil
        }
        guard case .string(let text) = value else {
            throw HTTPError.badRequest("\(field(key)) must be a string, got \(value.typeDescription)", code: "invalid_type", field: field(key))
        }
        guard !text.isEmpty, text.count <= maxLength else {
            throw HTTPError.badRequest("\(field(key)) must be 1 to \(maxLength) characters", code: "invalid_value", field: field(key))
        }
        return text
    }

    func requiredString(_ key: String, maxLength: Int = 256) throws -> String {
        try string(key, required: true, maxLength: maxLength)!
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = members[key], !value.isNull else { return nil }
        guard case .bool(let flag) = value else {
            throw HTTPError.badRequest("\(field(key)) must be true or false, got \(value.typeDescription)", code: "invalid_type", field: field(key))
        }
        return flag
    }

    /// An optional object (JSON `{}`), returned as its members.
    func object(_ key: String) throws -> [String: JSONValue]? {
        guard let value = members[key], !value.isNull else { return nil }
        guard case .object(let members) = value else {
            throw HTTPError.badRequest("\(field(key)) must be an object, got \(value.typeDescription)", code: "invalid_type", field: field(key))
        }
        return members
    }
}
