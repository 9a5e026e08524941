import Foundation

/// Reads the members of a JSON object by hand (the fast path beside `Codable` for the forms
/// the pipeline reads per message: stored run states, pipeline messages). Every failure names
/// the member's path, so a bad stored value says where it is bad.
public struct JSONFields {
    /// A member that is missing or has the wrong shape.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path.isEmpty ? "(top)" : path): \(reason)" }
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    public let members: [String: JSONValue]
    public let path: String

    /// The fields of `value`, which must be an object.
    public init(_ value: JSONValue, path: String = "") throws {
        guard case .object(let members) = value else { throw Failure(path: path, reason: "expected an object, got \(value.typeDescription)") }
        self.members = members
        self.path = path
    }

    func at(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The member, or nil when it is missing or `null`.
    public func value(_ key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    private func required(_ key: String) throws -> JSONValue {
        guard let value = value(key) else { throw Failure(path: at(key), reason: "is missing") }
        return value
    }

    public func string(_ key: String) throws -> String {
        let value = try required(key)
        guard case .string(let text) = value else { throw Failure(path: at(key), reason: "expected a string, got \(value.typeDescription)") }
        return text
    }

    public func optionalString(_ key: String) throws -> String? {
        guard value(key) != nil else { return nil }
        return try string(key)
    }

    public func int(_ key: String) throws -> Int {
        let value = try required(key)
        guard case .number(let number) = value, let int = number.int64Value else {
            throw Failure(path: at(key), reason: "expected an integer, got \(value.typeDescription)")
        }
        return Int(int)
    }

    public func optionalInt(_ key: String) throws -> Int? {
        guard value(key) != nil else { return nil }
        return try int(key)
    }

    public func bool(_ key: String) throws -> Bool {
        let value = try required(key)
        guard case .bool(let flag) = value else { throw Failure(path: at(key), reason: "expected a boolean, got \(value.typeDescription)") }
        return flag
    }

    /// An RFC 3339 instant.
    public func instant(_ key: String) throws -> Date {
        let text = try string(key)
        guard let date = RFC3339.parse(text) else { throw Failure(path: at(key), reason: "expected an RFC 3339 timestamp, got \"\(text)\"") }
        return date
    }

    public func optionalInstant(_ key: String) throws -> Date? {
        guard value(key) != nil else { return nil }
        return try instant(key)
    }

    /// A string member that must be one of `T`'s raw values.
    public func raw<T: RawRepresentable>(_ key: String, as type: T.Type = T.self) throws -> T where T.RawValue == String {
        let text = try string(key)
        guard let value = T(rawValue: text) else { throw Failure(path: at(key), reason: "\"\(text)\" is not a valid \(T.self)") }
        return value
    }

    public func object(_ key: String) throws -> [String: JSONValue] {
        let value = try required(key)
        guard case .object(let members) = value else { throw Failure(path: at(key), reason: "expected an object, got \(value.typeDescription)") }
        return members
    }

    public func optionalObject(_ key: String) throws -> [String: JSONValue]? {
        guard value(key) != nil else { return nil }
        return try object(key)
    }

    public func array(_ key: String) throws -> [JSONValue] {
        let value = try required(key)
        guard case .array(let elements) = value else { throw Failure(path: at(key), reason: "expected an array, got \(value.typeDescription)") }
        return elements
    }

    public func strings(_ key: String) throws -> [String] {
        try array(key).enumerated().map { index, element in
            guard case .string(let text) = element else { throw Failure(path: at(key) + "[\(index)]", reason: "expected a string") }
            return text
        }
    }

    /// A member read by `T`'s own reader.
    public func read<T: JSONReadable>(_ key: String, as type: T.Type = T.self) throws -> T {
        try T(json: try required(key), path: at(key))
    }

    public func optionalRead<T: JSONReadable>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard let value = value(key) else { return nil }
        return try T(json: value, path: at(key))
    }

    public func readArray<T: JSONReadable>(_ key: String, of type: T.Type = T.self) throws -> [T] {
        try array(key).enumerated().map { try T(json: $1, path: at(key) + "[\($0)]") }
    }
}

/// A type read from a parsed JSON value by hand (see ``JSONFields``).
public protocol JSONReadable {
    init(json: JSONValue, path: String) throws
}

/// A type written straight into a ``JSONWriter``.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONReadable {
    /// Parses and reads `data`.
    public init(jsonData data: Data) throws {
        try self.init(json: try JSONParser.parse(data), path: "")
    }
}

extension JSONWritable {
    /// The JSON bytes.
    public func jsonBytes(capacity: Int = 256) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        write(to: &writer)
        return writer.bytes
    }
}

extension JSONReadable {
    /// `Decodable` through the hand-written reader, so one mapping serves both (a failure
    /// becomes a `DecodingError` naming the member).
    public init(decodingWith decoder: any Decoder) throws {
        do {
            try self.init(json: try JSONValue(from: decoder), path: "")
        } catch let failure as JSONFields.Failure {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: failure.description))
        }
    }
}

extension JSONWritable {
    /// `Encodable` through the hand-written writer (one mapping serves both).
    public func encode(with encoder: any Encoder) throws {
        try JSONParser.parse(Data(jsonBytes())).encode(to: encoder)
    }
}
