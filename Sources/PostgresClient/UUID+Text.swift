import Foundation

extension UUID {
    /// The canonical lower-case text (`e621e1f8-c36c-495a-93fc-0c247a3e6e5f`), written without
    /// `uuidString`'s formatted printing, which showed up as a hot spot in the pipeline.
    public var lowercasedText: String {
        let digits: StaticString = "0123456789abcdef"
        return digits.withUTF8Buffer { digits in withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var out = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    buffer[out] = digits[Int(byte >> 4)]
                    buffer[out + 1] = digits[Int(byte & 0x0f)]
                    out += 2
                }
                return out
            }
        } }
    }
}

extension UUID {
    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (either case) without `sscanf`.
    public init?(fastText text: String) {
        var bytes = [UInt8](repeating: 0, count: 16)
        var utf8 = text.utf8.makeIterator()
        var count = 0, position = 0
        while let c = utf8.next() {
            position += 1
            if position == 9 || position == 14 || position == 19 || position == 24 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard count < 32, let value = nibble(c) else { return nil }
            if count % 2 == 0 { bytes[count / 2] = value << 4 } else { bytes[count / 2] |= value }
            count += 1
        }
        guard count == 32, position == 36 else { return nil }
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

extension UUID {
    /// Byte order, the order PostgreSQL sorts `uuid` in, without Foundation's `<` (which was a
    /// hot spot when a batch sorts its row ids to take locks in a fixed order).
    @inlinable
    public static func precedes(_ lhs: UUID, _ rhs: UUID) -> Bool {
        let (a, b) = withUnsafeBytes(of: lhs.uuid) { ($0.loadUnaligned(as: UInt64.self).bigEndian, $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian) }
        let (c, d) = withUnsafeBytes(of: rhs.uuid) { ($0.loadUnaligned(as: UInt64.self).bigEndian, $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian) }
        return a != c ? a < c : b < d
    }
}

extension Sequence where Element == UUID {
    /// The ids in byte order (see ``UUID/precedes(_:_:)``).
    public func sortedByBytes() -> [UUID] { sorted(by: UUID.precedes) }
}

/// The value of one hexadecimal digit (either case), for the text forms of `uuid` and `bytea`.
@inline(__always)
func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case 48...57: return c - 48
    case 97...102: return c - 87
    case 65...70: return c - 55
    default: return nil
    }
}
