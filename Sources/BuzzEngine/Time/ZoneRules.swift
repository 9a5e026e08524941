import BuzzKitWire
import Foundation

/// A time zone's UTC offsets and the wall-clock arithmetic the engine needs, computed with
/// integer math on top of `TimeZone.secondsFromGMT(for:)` instead of `Calendar`.
///
/// Offsets come from a per-zone ``ZoneOffsetTable`` (the zone's transitions between 1970
/// and 2200, built once per zone and shared), so a lookup is a binary search. Instants
/// outside that range ask `TimeZone` directly.
///
/// Wall-clock to instant conversion follows docs/contract.md §3: a local time inside a DST gap
/// moves forward by the gap's length (02:30 → 03:30), and a local time inside a fold takes
/// its first occurrence.
public struct ZoneRules: Sendable, Hashable, CustomStringConvertible {
    /// The identifier it was created with (`Europe/Berlin`, `UTC`).
    public let identifier: String
    let table: ZoneOffsetTable

    /// The rules of an IANA zone, or `nil` when Foundation does not know the identifier.
    /// Identifiers are case-sensitive (`utc` is unknown, `UTC` is known).
    public init?(identifier: String) {
        guard let table = ZoneOffsetTable.shared(for: identifier) else { return nil }
        self.identifier = identifier
        self.table = table
    }

    /// Coordinated Universal Time.
    public static let utc: ZoneRules = ZoneRules(identifier: "UTC")!

    /// The subscriber's zone, in docs/contract.md §3's order: the subscriber's `timezone`, then
    /// the tenant's `defaultTimezone`, then UTC. Unknown or empty identifiers are skipped.
    public static func resolve(subscriber: String?, tenantDefault: String?) -> ZoneRules {
        if let subscriber, !subscriber.isEmpty, let zone = ZoneRules(identifier: subscriber) { return zone }
        if let tenantDefault, !tenantDefault.isEmpty, let zone = ZoneRules(identifier: tenantDefault) { return zone }
        return .utc
    }

    /// The offset from UTC in seconds at an instant (`+3600` for CET).
    public func secondsFromUTC(at instant: Date) -> Int {
        Int(table.offset(at: ZoneRules.floorSeconds(instant)))
    }

    /// The wall-clock components of an instant in this zone.
    public func wallClock(at instant: Date) -> FireAt {
        let local = localSeconds(at: ZoneRules.floorSeconds(instant))
        let days = ZoneRules.floorDiv(local, 86_400)
        let secondOfDay = Int(local - days * 86_400)
        let date = CivilDate(daysSinceEpoch: days)
        return FireAt(year: date.year, month: date.month, day: date.day,
                      hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60)
    }

    /// The instant of a wall-clock date and time in this zone, with gaps moved forward and
    /// folds taking the first occurrence. Returns `nil` for an impossible date.
    public func instant(of wallClock: FireAt) -> Date? {
        guard CivilDate.isValid(year: wallClock.year, month: wallClock.month, day: wallClock.day),
              (0..<24).contains(wallClock.hour), (0..<60).contains(wallClock.minute), (0..<60).contains(wallClock.second)
        else { return nil }
        let days = CivilDate(year: wallClock.year, month: wallClock.month, day: wallClock.day).daysSinceEpoch
        let local = days * 86_400 + Int64(wallClock.hour * 3600 + wallClock.minute * 60 + wallClock.second)
        return Date(timeIntervalSince1970: Double(epochSecond(forLocal: local)))
    }

    /// The identifier.
    public var description: String { identifier }

    public static func == (lhs: ZoneRules, rhs: ZoneRules) -> Bool { lhs.identifier == rhs.identifier }

    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    // MARK: - Integer core (epoch seconds; "local" = epoch seconds as if the wall clock were UTC)

    func localSeconds(at epochSecond: Int64) -> Int64 {
        epochSecond + Int64(table.offset(at: epochSecond))
    }

    /// The epoch second whose wall clock is `local`; DST gaps move forward by the gap's
    /// length, folds take the first occurrence.
    func epochSecond(forLocal local: Int64) -> Int64 {
        let before = table.offset(at: local - 86_400)
        let middle = table.offset(at: local)
        let after = table.offset(at: local + 86_400)
        var best: Int64?
        for candidateOffset in [before, middle, after] {
            let candidate = local - Int64(candidateOffset)
            if table.offset(at: candidate) == candidateOffset, best.map({ candidate < $0 }) ?? true {
                best = candidate
            }
            if before == middle && middle == after { break }
        }
        if let best { return best }
        // Inside a gap: read the wall clock with the offset in force before the transition
        // (the smaller one), which lands exactly the gap's length later on the wall clock.
        return local - Int64(min(before, middle, after))
    }

    /// Whole epoch seconds, clamped to ±10^15 so absurd instants cannot trap.
    static func floorSeconds(_ instant: Date) -> Int64 {
        let seconds = instant.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return seconds > 0 ? 1_000_000_000_000_000 : -1_000_000_000_000_000 }
        return Int64(min(max(seconds, -1e15), 1e15))
    }

    static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    }
}
