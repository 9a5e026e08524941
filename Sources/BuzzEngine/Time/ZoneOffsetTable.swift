import Foundation
import Synchronization

/// A zone's UTC offset as a sorted list of transitions, so an offset lookup is a binary
/// search instead of a call into ICU.
///
/// The table covers 1970-01-01 to 2200-01-01 and is built once per identifier (about a
/// millisecond for a zone with daylight saving time), then shared by every ``ZoneRules``
/// of that identifier; it is immutable after construction. Instants outside the range are
/// answered by `TimeZone.secondsFromGMT(for:)` directly. The tests compare the table with
/// `TimeZone` and `Calendar` over random zones and instants.
final class ZoneOffsetTable: Sendable {
    static let lowerBound: Int64 = 0
    static let upperBound: Int64 = 7_258_118_400

    let timeZone: TimeZone
    /// Transition instants (epoch seconds), ascending.
    let transitions: [Int64]
    /// `offsets[i]` is in force from `transitions[i - 1]` (inclusive) to `transitions[i]`;
    /// `offsets[0]` before the first transition.
    let offsets: [Int32]

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var transitions: [Int64] = []
        var offsets: [Int32] = [
            Int32(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ZoneOffsetTable.lowerBound)))),
        ]
        let upper = Date(timeIntervalSince1970: Double(ZoneOffsetTable.upperBound))
        var cursor = Date(timeIntervalSince1970: Double(ZoneOffsetTable.lowerBound))
        while let next = timeZone.nextDaylightSavingTimeTransition(after: cursor), next < upper, next > cursor {
            let instant = Int64(next.timeIntervalSince1970.rounded(.down))
            let offset = Int32(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
            if offset != offsets[offsets.count - 1] {
                transitions.append(instant)
                offsets.append(offset)
            }
            cursor = next
        }
        self.transitions = transitions
        self.offsets = offsets
    }

    /// The UTC offset in seconds at an epoch second.
    func offset(at epochSecond: Int64) -> Int {
        guard epochSecond >= ZoneOffsetTable.lowerBound, epochSecond < ZoneOffsetTable.upperBound else {
            return timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(epochSecond)))
        }
        var low = 0, high = transitions.count
        while low < high {
            let mid = (low + high) >> 1
            if transitions[mid] <= epochSecond { low = mid + 1 } else { high = mid }
        }
        return Int(offsets[low])
    }

    private static let cache = Mutex<[String: ZoneOffsetTable]>([:])

    /// The shared table for an identifier, or `nil` when the zone is unknown.
    static func shared(for identifier: String) -> ZoneOffsetTable? {
        if let table = cache.withLock({ $0[identifier] }) { return table }
        guard let timeZone = TimeZone(identifier: identifier) else { return nil }
        let table = ZoneOffsetTable(timeZone: timeZone)
        return cache.withLock { tables in
            if let existing = tables[identifier] { return existing }
            tables[identifier] = table
            return table
        }
    }
}
