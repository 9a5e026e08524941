import Foundation

/// A parameter as it goes to PostgreSQL: text, or a binary array.
///
/// Arrays of text, `uuid`, `timestamptz`, `int` (4 bytes), `bool` and `bytea` go in
/// PostgreSQL's binary array form. Every stage binds its batch as such arrays (run states, plan
/// bodies, ids, moments, flags, counts), and in text form the server parsed each through
/// `array_in` and the element's input function: about 9 % of PostgreSQL's CPU in sustained
/// windows (issue 43), and after text, ids and times went binary, 3-4 % still for the others
/// (`array_in`, the outbox bodies' hex, integers). In binary form an element is its length and
/// bytes. Other values stay text, whose parsing costs next to nothing.
public enum PostgresBind: Sendable, Equatable {
    case text(String)
    case binary([UInt8])

    /// Whether a server-side text value would be cut at a NUL (libpq passes text as C strings).
    var containsNUL: Bool {
        switch self {
        case .text(let text): PostgresConnection.containsNUL(text)
        case .binary: false  // a binary array with a NUL in a text element is never built
        }
    }
}

/// The element types that go in binary arrays, with the server's type of each.
@usableFromInline
enum PostgresBinaryArray {
    static let textOID: UInt32 = 25
    static let uuidOID: UInt32 = 2950
    static let timestamptzOID: UInt32 = 1184
    static let int4OID: UInt32 = 23
    static let boolOID: UInt32 = 16
    static let byteaOID: UInt32 = 17
    /// 2000-01-01 00:00:00 UTC, PostgreSQL's epoch, in microseconds after 1970's.
    static let postgresEpochMicros: Int64 = 946_684_800_000_000

    /// The binary form of `elements` (all of one type), or nil when it has none: an element
    /// type not listed here, text holding a NUL (refused as text, before anything runs), or an
    /// `Int` beyond 32 bits (as text, the server says it is out of range for `int`).
    @usableFromInline
    static func encode<Element>(_ elements: [Element]) -> [UInt8]? {
        // Exact element types only, read in place (a cast `as? [String]` would check each one).
        if Element.self == String.self {
            return build(unsafeBitCast(elements, to: [String].self), oid: textOID, size: { $0.utf8.count }) { text, out in
                var text = text
                return text.withUTF8 { bytes in
                    if let base = bytes.baseAddress, memchr(base, 0, bytes.count) != nil { return false }
                    out.append(contentsOf: bytes)
                    return true
                }
            }
        }
        if Element.self == UUID.self {
            return build(unsafeBitCast(elements, to: [UUID].self), oid: uuidOID, size: { _ in 16 }) { uuid, out in
                withUnsafeBytes(of: uuid.uuid) { out.append(contentsOf: $0) }
                return true
            }
        }
        if Element.self == Date.self {
            return build(unsafeBitCast(elements, to: [Date].self), oid: timestamptzOID, size: { _ in 8 }) { date, out in
                // The same microsecond as the text form (PostgresTimestamp.format) names.
                let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) - postgresEpochMicros
                append(UInt64(bitPattern: micros), to: &out)
                return true
            }
        }
        if Element.self == Int.self {
            return build(unsafeBitCast(elements, to: [Int].self), oid: int4OID, size: { _ in 4 }) { value, out in
                guard let narrow = Int32(exactly: value) else { return false }
                append(UInt32(bitPattern: narrow), to: &out)
                return true
            }
        }
        if Element.self == Bool.self {
            return build(unsafeBitCast(elements, to: [Bool].self), oid: boolOID, size: { _ in 1 }) { flag, out in
                out.append(flag ? 1 : 0)
                return true
            }
        }
        if Element.self == Data.self {
            return build(unsafeBitCast(elements, to: [Data].self), oid: byteaOID, size: { $0.count }) { bytes, out in
                out.append(contentsOf: bytes)
                return true
            }
        }
        return nil
    }

    /// The cast a statement writes after a parameter that takes `bytes` as they are
    /// (`::uuid[]`), read from the element type in their header.
    @usableFromInline
    static func cast(of bytes: [UInt8]) -> String? {
        guard bytes.count >= 12 else { return nil }
        switch UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11]) {
        case textOID: return "::text[]"
        case uuidOID: return "::uuid[]"
        case timestamptzOID: return "::timestamptz[]"
        case int4OID: return "::int[]"
        case boolOID: return "::bool[]"
        case byteaOID: return "::bytea[]"
        default: return nil
        }
    }

    /// A one-dimensional array without NULLs: dimensions, flags, element type, the dimension's
    /// length and lower bound, then each element's length and bytes, integers big-endian.
    private static func build<E>(_ elements: [E], oid: UInt32, size: (E) -> Int,
                                 write: (E, inout [UInt8]) -> Bool) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + size($1) })
        append(UInt32(elements.isEmpty ? 0 : 1), to: &out)
        append(UInt32(0), to: &out)
        append(oid, to: &out)
        if !elements.isEmpty {
            append(UInt32(elements.count), to: &out)
            append(UInt32(1), to: &out)
        }
        for element in elements {
            let lengthAt = out.count
            append(UInt32(0), to: &out)
            guard write(element, &out) else { return nil }
            let length = UInt32(out.count - lengthAt - 4)
            withUnsafeBytes(of: length.bigEndian) { bytes in
                for index in 0..<4 { out[lengthAt + index] = bytes[index] }
            }
        }
        return out
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }
}
