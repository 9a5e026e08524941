import Foundation

/// A strict RFC 8259 parser straight into ``JSONValue`` (no `Decoder` round trips).
///
/// Integral numbers that fit in `Int64` become `.int`, others `.double`, as the `Codable`
/// path does. Invalid UTF-8, trailing commas, comments, leading zeros, lone surrogates and
/// anything after the value are errors.
public struct JSONParser {
    /// A parse failure with the byte offset.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var offset: Int
        public var reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
        /// The document is well formed but holds a NUL (`\u0000`), which is refused anywhere.
        public var isNUL: Bool { reason == Self.nulReason }
        static let nulReason = "NUL (\\u0000) is not accepted anywhere in a document"
    }

    let bytes: [UInt8]
    var index = 0
    private var depth = 0
    /// Deeper nesting is refused (a stack guard for hostile input).
    public static let maximumDepth = 512

    /// Parses a whole document.
    public static func parse(_ data: Data) throws -> JSONValue {
        guard String(data: data, encoding: .utf8) != nil else { throw Failure(offset: 0, reason: "not UTF-8") }
        return try parse(bytes: [UInt8](data))
    }

    /// Parses a JSON text held in a string (already valid UTF-8).
    public static func parse(_ text: String) throws -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    private static func parse(bytes: [UInt8]) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.fail("unexpected data after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
    }

    private mutating func value() throws -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw fail("unknown literal") }
        index += count
    }

    private mutating func object() throws -> JSONValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw fail("nested too deeply") }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            members[key] = try value()
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func array() throws -> JSONValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw fail("nested too deeply") }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            items.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }
}
