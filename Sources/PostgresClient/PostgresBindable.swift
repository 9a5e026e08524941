import Foundation

/// A Swift value that can be sent as a PostgreSQL parameter in text format.
public protocol PostgresBindable: Sendable {
    /// The value's PostgreSQL text representation.
    var postgresText: String { get }
    /// The value as it is sent: its text unless the type has a binary form (``PostgresBind``).
    var postgresBind: PostgresBind { get }
}

extension PostgresBindable {
    public var postgresBind: PostgresBind { .text(postgresText) }
}

extension String: PostgresBindable {
    public var postgresText: String { self }
}

extension Substring: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Int: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Int64: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Int32: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Int16: PostgresBindable {
    public var postgresText: String { String(self) }
}

extension Bool: PostgresBindable {
    public var postgresText: String { self ? "t" : "f" }
}

extension Double: PostgresBindable {
    public var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self > 0 ? "Infinity" : "-Infinity" }
        return "\(self)"
    }
}

extension UUID: PostgresBindable {
    public var postgresText: String { lowercasedText }
}

extension Date: PostgresBindable {
    /// `YYYY-MM-DD HH:MM:SS.ffffff+00`, microsecond precision like `timestamptz`.
    public var postgresText: String { PostgresTimestamp.format(self) }
}

extension Data: PostgresBindable {
    /// `bytea` hex format, written straight into the string's storage (an outbox row of packed
    /// plans is tens of kilobytes).
    public var postgresText: String {
        String(unsafeUninitializedCapacity: 2 + count * 2) { out in
            out[0] = UInt8(ascii: "\\")
            out[1] = UInt8(ascii: "x")
            var position = 2
            Self.hexDigits.withUTF8Buffer { hex in
                withUnsafeBytes { bytes in
                    for byte in bytes {
                        out[position] = hex[Int(byte >> 4)]
                        out[position + 1] = hex[Int(byte & 0x0f)]
                        position += 2
                    }
                }
            }
            return position
        }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"
}

/// A Codable value stored in a `jsonb` (or `json`) column.
public struct JSONB<Value: Codable & Sendable>: PostgresBindable, PostgresDecodable, Sendable {
    public var value: Value

    public init(_ value: Value) { self.value = value }

    public var postgresText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a Codable value into JSON only fails for non-finite floats; store null then.
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    public static func decode(postgresText text: String?, column: String) throws -> JSONB<Value> {
        let text = try requireValue(text, column: column)
        do {
            return JSONB(try JSONDecoder().decode(Value.self, from: Data(text.utf8)))
        } catch {
            throw PostgresError(.decoding, "column \(column): JSON does not decode as \(Value.self): \(error)")
        }
    }
}

/// Arrays bind as one-dimensional PostgreSQL arrays: binary for the elements ``PostgresBind``
/// lists, array literals (`{"a","b"}`) for the rest.
extension Array: PostgresBindable where Element: PostgresBindable {
    @inlinable
    public var postgresBind: PostgresBind {
        PostgresBinaryArray.encode(self).map(PostgresBind.binary) ?? .text(postgresText)
    }

    @inlinable
    public var postgresText: String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(2 + count * 16)
        for index in indices {
            let element = self[index]
            if index > startIndex { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            // Copies runs of plain bytes at once (elements can be kilobytes of JSON).
            var text = element.postgresText
            text.withUTF8 { bytes in
                var start = 0
                for position in 0..<bytes.count where bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "\\") {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
                    out.append(UInt8(ascii: "\\"))
                    start = position
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}
