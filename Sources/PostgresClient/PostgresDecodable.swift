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
        let text = try requireValue(text, column: column)
        guard let value = Int(text) else { throw decodingFailure(text, column: column, as: Int.self) }
        return value
    }
}

extension Int64: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Int64 {
        let text = try requireValue(text, column: column)
        guard let value = Int64(text) else { throw decodingFailure(text, column: column, as: Int64.self) }
        return value
    }
}

extension Int32: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Int32 {
        let text = try requireValue(text, column: column)
        guard let value = Int32(text) else { throw decodingFailure(text, column: column, as: Int32.self) }
        return value
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
        let text = try requireValue(text, column: column)
        guard let value = Double(text) else { throw decodingFailure(text, column: column, as: Double.self) }
        return value
    }
}

extension UUID: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> UUID {
        let text = try requireValue(text, column: column)
        guard let value = UUID(fastText: text) else { throw decodingFailure(text, column: column, as: UUID.self) }
        return value
    }
}

extension Date: PostgresDecodable {
    public static func decode(postgresText text: String?, column: String) throws -> Date {
        let text = try requireValue(text, column: column)
        guard let value = PostgresTimestamp.parse(text) else { throw decodingFailure(text, column: column, as: Date.self) }
        return value
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
