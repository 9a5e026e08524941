import Foundation

/// RFC 3339 timestamps (`2026-11-30T09:00:00Z`), parsed and written with integer arithmetic.
///
/// Every instant on the wire and in stored run state uses this format, so nothing depends
/// on a `JSONEncoder`'s date strategy. Output is always UTC with a `Z`; a fraction is
/// written with millisecond precision only when the instant has one.
public enum RFC3339 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. Lowercase `t`/`z` are accepted;
    /// a leap second (`:60`) is read as the first second of the next minute. Returns `nil`
    /// for anything else.
    public static func parse(_ text: String) -> Date? {
        var utf8 = Array(text.utf8)
        guard utf8.count >= 20 else { return nil }
        if utf8[10] == UInt8(ascii: "t") { utf8[10] = UInt8(ascii: "T") }
        guard let year = number(utf8, 0, 4), utf8[4] == UInt8(ascii: "-"),
              let month = number(utf8, 5, 2), utf8[7] == UInt8(ascii: "-"),
              let day = number(utf8, 8, 2), utf8[10] == UInt8(ascii: "T"),
              let hour = number(utf8, 11, 2), utf8[13] == UInt8(ascii: ":"),
              let minute = number(utf8, 14, 2), utf8[16] == UInt8(ascii: ":"),
              let second = number(utf8, 17, 2),
              CivilDate.isValid(year: year, month: month, day: day),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if utf8[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < utf8.count, let digit = digitValue(utf8[index]) {
                addFractionDigit(digit, to: &fraction, scale: &scale)
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < utf8.count else { return nil }
        var offsetSeconds = 0
        switch utf8[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = utf8[index] == UInt8(ascii: "-") ? -1 : 1
            guard index + 6 == utf8.count, let oh = number(utf8, index + 1, 2),
                  utf8[index + 3] == UInt8(ascii: ":"), let om = number(utf8, index + 4, 2),
                  oh < 24, om < 60
            else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
            index += 6
        default:
            return nil
        }
        guard index == utf8.count else { return nil }
        let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Writes an instant as `YYYY-MM-DDTHH:MM:SSZ`, or `…SS.mmmZ` when it has a fraction of
    /// a second (rounded to milliseconds).
    public static func format(_ date: Date) -> String {
        let millisecondsValue = epochMilliseconds(of: date)
        var seconds = millisecondsValue / 1000
        var millis = millisecondsValue % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let date = CivilDate(daysSinceEpoch: days)
        guard (0...9999).contains(date.year) else {
            var text = date.description
            text += "T"
            text += CivilDate.pad(secondOfDay / 3600, 2) + ":"
            text += CivilDate.pad(secondOfDay / 60 % 60, 2) + ":"
            text += CivilDate.pad(secondOfDay % 60, 2)
            if millis != 0 { text += "." + CivilDate.pad(Int(millis), 3) }
            return text + "Z"
        }
        // Four-digit years, the only ones a run meets: written straight into the string's
        // bytes (a run's state and every message carry several; building them from padded
        // pieces cost 4 % of a worker's CPU).
        return String(unsafeUninitializedCapacity: 24) { bytes in
            var at = 0
            func put(_ value: Int, width: Int, then separator: UInt8?) {
                var rest = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    bytes[at + offset] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += width
                if let separator { bytes[at] = separator; at += 1 }
            }
            put(date.year, width: 4, then: UInt8(ascii: "-"))
            put(date.month, width: 2, then: UInt8(ascii: "-"))
            put(date.day, width: 2, then: UInt8(ascii: "T"))
            put(secondOfDay / 3600, width: 2, then: UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, width: 2, then: UInt8(ascii: ":"))
            put(secondOfDay % 60, width: 2, then: millis != 0 ? UInt8(ascii: ".") : nil)
            if millis != 0 { put(Int(millis), width: 3, then: nil) }
            bytes[at] = UInt8(ascii: "Z")
            return at + 1
        }
    }

    /// Milliseconds since 1970 of `date`, rounded as ``format(_:)`` rounds them.
    public static func epochMilliseconds(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The instant `milliseconds` after 1970: the very `Date` that ``parse(_:)`` returns for
    /// ``format(_:)``'s text of it (the same arithmetic, digit by digit), so a stored form that
    /// keeps instants as numbers reads back equal to one that keeps them as text.
    public static func instant(epochMilliseconds milliseconds: Int64) -> Date {
        var seconds = milliseconds / 1000, millis = Int(milliseconds % 1000)
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        var fraction = 0.0, scale = 0.1
        if millis != 0 {  // the three digits format(_:) writes
            addFractionDigit(millis / 100, to: &fraction, scale: &scale)
            addFractionDigit(millis / 10 % 10, to: &fraction, scale: &scale)
            addFractionDigit(millis % 10, to: &fraction, scale: &scale)
        }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func addFractionDigit(_ digit: Int, to fraction: inout Double, scale: inout Double) {
        fraction += Double(digit) * scale
        scale /= 10
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<(start + count) {
            guard let digit = digitValue(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
