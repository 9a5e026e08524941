import Foundation

extension JSONParser {
    /// A string (the opening quote at `index`), with escapes resolved.
    mutating func string() throws -> String {
        index += 1
        // Most strings have no escapes: find the closing quote and take the bytes at once.
        var end = index
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                index = end + 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end += 1
        }
        var out: [UInt8] = Array(bytes[index..<end])
        index = end
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { index += 1; break }
            if byte < 0x20 { throw fail("control character in a string") }
            if byte != UInt8(ascii: "\\") { out.append(byte); index += 1; continue }
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                // NUL is refused anywhere (DESIGN §4c): PostgreSQL's text and jsonb cannot hold it,
                // so it would be accepted here and fail every write after the 202.
                if scalar == 0 { throw fail(Failure.nulReason) }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("lone surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("lone surrogate")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw fail("invalid escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case 48...57: digit = UInt32(c - 48)
            case 97...102: digit = UInt32(c - 87)
            case 65...70: digit = UInt32(c - 55)
            default: throw fail("bad hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// A number per RFC 8259's grammar.
    mutating func number() throws -> JSONNumber {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (48...57).contains(bytes[index]) else { throw fail("unexpected character") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, (48...57).contains(bytes[index]) { throw fail("leading zero") }
        } else {
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, (48...57).contains(bytes[index]) else { throw fail("digits expected after '.'") }
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, (48...57).contains(bytes[index]) else { throw fail("digits expected in the exponent") }
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        }
        if integral, index - start <= 18 {
            // Up to 18 digits always fit in an Int64: no text needed.
            var value: Int64 = 0
            let negative = bytes[start] == UInt8(ascii: "-")
            for position in (negative ? start + 1 : start)..<index { value = value * 10 + Int64(bytes[position] - 48) }
            return .int(negative ? -value : value)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
        if let exact = JSONNumber.exactInt64(value) { return .int(exact) }
        return .double(value)
    }
}
