/// A time of day, `HH:MM[:SS]` on the wire (`07:00`, `07:00:30`), 00:00:00–23:59:59.
public struct WallClockTime: Sendable, Hashable, Comparable, TextCoded {
    /// The hour, 0–23.
    public let hour: Int
    /// The minute, 0–59.
    public let minute: Int
    /// The second, 0–59.
    public let second: Int
    /// Whether the source text had seconds (kept so the text round-trips).
    public let hasSeconds: Bool

    /// A time from its parts, or `nil` when a part is out of range.
    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
        self.hasSeconds = second != 0
    }

    public static let textForm = "HH:MM or HH:MM:SS"

    /// Parses `HH:MM` or `HH:MM:SS` (two digits each), or returns `nil`.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5 || bytes.count == 8, bytes[2] == UInt8(ascii: ":") else { return nil }
        guard let hour = WallClockTime.twoDigits(bytes, 0), let minute = WallClockTime.twoDigits(bytes, 3) else { return nil }
        var second = 0
        if bytes.count == 8 {
            guard bytes[5] == UInt8(ascii: ":"), let value = WallClockTime.twoDigits(bytes, 6) else { return nil }
            second = value
        }
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
        self.hasSeconds = bytes.count == 8
    }

    /// Seconds since midnight, 0–86399.
    public var secondsOfDay: Int { hour * 3600 + minute * 60 + second }

    /// `HH:MM`, or `HH:MM:SS` when the source had seconds or `second` is not zero.
    public var description: String {
        let base = "\(WallClockTime.pad(hour)):\(WallClockTime.pad(minute))"
        return hasSeconds || second != 0 ? base + ":\(WallClockTime.pad(second))" : base
    }

    public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool { lhs.secondsOfDay < rhs.secondsOfDay }

    public static func == (lhs: WallClockTime, rhs: WallClockTime) -> Bool { lhs.secondsOfDay == rhs.secondsOfDay }

    public func hash(into hasher: inout Hasher) { hasher.combine(secondsOfDay) }

    private static func twoDigits(_ bytes: [UInt8], _ start: Int) -> Int? {
        let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
        guard bytes[start] >= zero, bytes[start] <= nine, bytes[start + 1] >= zero, bytes[start + 1] <= nine else { return nil }
        return Int(bytes[start] - zero) * 10 + Int(bytes[start + 1] - zero)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
