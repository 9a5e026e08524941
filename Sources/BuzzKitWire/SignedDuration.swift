/// A duration written as `[+|-]<n>d<n>h<n>m<n>s` with at least one part, each part at most
/// once and in that order: `-1h30m`, `2d`, `+45m`, `90s`. Used by `waitUntil.offset`.
/// The magnitude is limited to 400 days.
public struct SignedDuration: Sendable, Hashable, CustomStringConvertible {
    /// The text as written.
    public let text: String
    /// The duration in seconds (negative for `-`).
    public let seconds: Int64

    /// The largest magnitude accepted, in seconds (400 days).
    public static let limit: Int64 = 400 * 86_400

    /// Parses the text, or returns `nil`.
    public init?(parsing text: String) {
        var bytes = Substring(text).utf8[...]
        var sign: Int64 = 1
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            sign = first == UInt8(ascii: "-") ? -1 : 1
            bytes = bytes.dropFirst()
        }
        let units: [(UInt8, Int64)] = [(UInt8(ascii: "d"), 86_400), (UInt8(ascii: "h"), 3600),
                                       (UInt8(ascii: "m"), 60), (UInt8(ascii: "s"), 1)]
        var unitIndex = 0
        var total: Int64 = 0
        var parts = 0
        while !bytes.isEmpty {
            var value: Int64 = 0
            var digits = 0
            while let byte = bytes.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
                bytes = bytes.dropFirst()
                if value > SignedDuration.limit { return nil }
            }
            guard digits > 0, let unit = bytes.first else { return nil }
            bytes = bytes.dropFirst()
            guard let found = units[unitIndex...].firstIndex(where: { $0.0 == unit }) else { return nil }
            total += value * units[found].1
            unitIndex = found + 1
            parts += 1
            if total > SignedDuration.limit { return nil }
        }
        guard parts > 0 else { return nil }
        self.text = text
        self.seconds = sign * total
    }

    /// The text.
    public var description: String { text }
}
