import BuzzKitWire
import Foundation

/// Fast conversion between `Date` and PostgreSQL's ISO `timestamptz` text.
///
/// Connections set `DateStyle=ISO` and `TimeZone=UTC`, so the server writes
/// `2026-11-30 09:00:00.123456+00`; offsets other than `+00` are still understood.
public enum PostgresTimestamp {
    /// Formats `date` as `YYYY-MM-DD HH:MM:SS.ffffff+00`.
    public static func format(_ date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        var totalMicros = Int64(micros)
        let days = totalMicros >= 0 ? totalMicros / 86_400_000_000 : (totalMicros - 86_399_999_999) / 86_400_000_000
        totalMicros -= days * 86_400_000_000
        let second = Int(totalMicros / 1_000_000)
        let fraction = Int(totalMicros % 1_000_000)
        let pad = CivilDate.pad
        return "\(CivilDate(daysSinceEpoch: days)) \(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2)).\(pad(fraction, 6))+00"
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM]]`, also with a `T` separator or `Z`.
    public static func parse(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        let b = Array(text.utf8)
        guard b.count >= 19 else { return nil }
        func num(_ from: Int, _ count: Int) -> Int64? {
            var v: Int64 = 0
            for i in from..<(from + count) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard let year = num(0, 4), b[4] == 45, let month = num(5, 2), b[7] == 45, let day = num(8, 2),
              b[10] == 32 || b[10] == 84, let hour = num(11, 2), b[13] == 58, let minute = num(14, 2),
              b[16] == 58, let second = num(17, 2) else { return nil }
        var i = 19
        var micros: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 6 { micros = micros * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if i < b.count {
            if b[i] == 90 { i += 1 } else {
                guard b[i] == 43 || b[i] == 45, i + 3 <= b.count, let oh = num(i + 1, 2) else { return nil }
                let sign: Int64 = b[i] == 45 ? -1 : 1
                var om: Int64 = 0
                var j = i + 3
                if j < b.count, b[j] == 58 { j += 1 }
                if j + 2 <= b.count, let m = num(j, 2) { om = m; j += 2 }
                offsetSeconds = sign * (oh * 3600 + om * 60)
                i = j
            }
        }
        guard i == b.count else { return nil }
        let days = CivilDate(year: Int(year), month: Int(month), day: Int(day)).daysSinceEpoch
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }
}
