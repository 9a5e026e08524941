import Foundation

/// A Swift type that can be read from a column in text format.
public protocol PostgresDecodable {
    /// Decodes the column's text; `text` is nil for SQL NULL.
    static func decode(postgresText text: String?, column: String) throws -> Self
}

@inline(__always)
func requireValue(_ text: String?, column: String) throws -> String {
    guard let text else { throw PostgresError(.decoding, "column \(column) is NULL; decode it as an Optional") }
    return text
}

func decodingFailure(_ text: String, column: String, as type: Any.Type) -> PostgresError {
    PostgresError(.decoding, "column \(column): \"\(text.prefix(80))\" is not a valid \(type)")
}

/// The column's text read by `parse`: a NULL or text `parse` refuses is a decoding error.
@inline(__always)
func parsed<Value>(_ text: String?, column: String, by parse: (String) -> Value?) throws -> Value {
    let text = try requireValue(text, column: column)
    guard let value = parse(text) else { throw decodingFailure(text, column: column, as: Value.self) }
    return value
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Wrapped? {
        guard let text else { return nil }
        return try Wrapped.decode(postgresText: text, column: column)
    }
}

extension String: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> String {
        try requireValue(text, column: column)
    }
}

extension Int: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Int {
        try parsed(text, column: column, by: Int.init)
    }
}

extension Int64: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Int64 {
        try parsed(text, column: column, by: Int64.init)
    }
}

extension Int32: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Int32 {
        try parsed(text, column: column, by: Int32.init)
    }
}

extension Bool: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Bool {
        switch try requireValue(text, column: column) {
        case "t", "true": return true
        case "f", "false": return false
        case let other: throw decodingFailure(other, column: column, as: Bool.self)
        }
    }
}

extension Double: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Double {
        try parsed(text, column: column, by: Double.init)
    }
}

extension UUID: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> UUID {
        try parsed(text, column: column, by: { UUID(fastText: $0) })
    }
}

extension Date: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Date {
        try parsed(text, column: column, by: PostgresTimestamp.parse)
    }
}

extension Data: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Data {
        let text = try requireValue(text, column: column)
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            throw decodingFailure(text, column: column, as: Data.self)
        }
        var out = [UInt8](repeating: 0, count: (utf8.count - 2) / 2)
        var i = 2
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { throw decodingFailure(text, column: column, as: Data.self) }
            out[(i - 2) / 2] = hi << 4 | lo
            i += 2
        }
        return Data(out)
    }
}

extension Array: PostgresDecodable where Element: PostgresDecodable {
    /// Decodes a one-dimensional array literal such as `{a,"b c",NULL}`.
    public static func decode(postgresText text: String?, column: String) throws -> [Element] {
        let text = try requireValue(text, column: column)
        guard let items = PostgresArrayLiteral.parse(text) else { throw decodingFailure(text, column: column, as: [Element].self) }
        return try items.map { try Element.decode(postgresText: $0, column: column) }
    }
}
