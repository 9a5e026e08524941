import BuzzKitWire
import Foundation

extension FireAt {
    /// Whether the components name a real calendar date and a time of day (seconds 0–59).
    public var isValid: Bool {
        CivilDate.isValid(year: year, month: month, day: day)
            && (0..<24).contains(hour) && (0..<60).contains(minute) && (0..<60).contains(second)
    }

    /// The instant at which this floating wall clock occurs in `zone`.
    ///
    /// This is what a calendar trigger without a zone does on the device: the same
    /// components give a different instant in a different zone. Times that do not exist or
    /// occur twice follow the server's rules (docs/contract.md §3): a time inside a DST gap moves
    /// forward by the gap's length (02:30 → 03:30), a time inside a fold takes its first
    /// occurrence. Integer arithmetic on the zone's offsets, no `Calendar`.
    public func instant(in zone: TimeZone) -> Date {
        let wall = CivilDate(year: year, month: month, day: day).daysSinceEpoch * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
        func offset(at seconds: Int64) -> Int64 {
            Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
        }
        let offsetBefore = offset(at: wall - 86_400)
        let offsetAfter = offset(at: wall + 86_400)
        let early = wall - offsetBefore
        let late = wall - offsetAfter
        let earlyValid = offset(at: early) == offsetBefore
        let lateValid = offset(at: late) == offsetAfter
        let chosen: Int64
        switch (earlyValid, lateValid) {
        case (true, true): chosen = min(early, late)  // a fold: the first occurrence
        case (true, false): chosen = early
        case (false, true): chosen = late
        case (false, false): chosen = early  // a gap: forward by the gap's length
        }
        return Date(timeIntervalSince1970: TimeInterval(chosen))
    }

    /// The wall-clock components of `instant` in `zone` (the inverse of ``instant(in:)``
    /// outside gaps and folds).
    public init(instant: Date, in zone: TimeZone) {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        let local = seconds + Int64(zone.secondsFromGMT(for: instant))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = Int(local - days * 86_400)
        let date = CivilDate(daysSinceEpoch: days)
        self.init(year: date.year, month: date.month, day: date.day,
                  hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60)
    }
}
