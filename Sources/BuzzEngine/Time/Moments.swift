import BuzzKitWire
import Foundation

/// The time rules of docs/contract.md §3: when a `waitUntil` ends, how quiet hours move a moment,
/// and the `fireAt` wall clock handed to devices. Pure functions; the start instant is
/// always a parameter.
public enum Moments {
    /// The first instant at or after `start` whose wall clock in `zone` is `time`.
    ///
    /// Takes the first local date D, starting at the local date of `start`, whose instant
    /// (D, time) is at or after `start`. A time inside a DST gap moves forward by the gap's
    /// length; a time inside a fold takes its first occurrence.
    public static func nextOccurrence(of time: WallClockTime, in zone: ZoneRules, atOrAfter start: Date) -> Date {
        let startSeconds = start.timeIntervalSince1970
        let firstDay = ZoneRules.floorDiv(zone.localSeconds(at: ZoneRules.floorSeconds(start)), 86_400)
        var candidate: Int64 = 0
        for dayOffset in Int64(0)..<4 {
            candidate = zone.epochSecond(forLocal: (firstDay + dayOffset) * 86_400 + Int64(time.secondsOfDay))
            if Double(candidate) >= startSeconds { break }
        }
        return Date(timeIntervalSince1970: Double(candidate))
    }

    /// When `moment` is inside `quietHours` in `zone`: the next end of the window after it
    /// (normalised like any wall-clock time: a gap moves forward, a fold takes the first
    /// occurrence). Returns `nil` when the moment is not quiet.
    ///
    /// If a normalised end is itself quiet (only possible when a DST gap swallows the end
    /// of an almost-day-long window), the following end is taken, so the result is never
    /// inside quiet hours.
    public static func quietHoursEnd(after moment: Date, quietHours: QuietHours, in zone: ZoneRules) -> Date? {
        var current = moment
        var shifted = false
        for _ in 0..<4 {
            let seconds = ZoneRules.floorSeconds(current)
            let local = zone.localSeconds(at: seconds)
            let day = ZoneRules.floorDiv(local, 86_400)
            guard quietHours.contains(secondsOfDay: Int(local - day * 86_400)) else { break }
            let currentSeconds = current.timeIntervalSince1970
            var end: Int64 = 0
            for dayOffset in Int64(0)..<4 {
                end = zone.epochSecond(forLocal: (day + dayOffset) * 86_400 + Int64(quietHours.end.secondsOfDay))
                if Double(end) > currentSeconds { break }
            }
            current = Date(timeIntervalSince1970: Double(end))
            shifted = true
        }
        return shifted ? current : nil
    }

    /// Applies quiet hours (unless `policy` is `.ignore` or there are none) and computes
    /// `fireAt` in the subscriber's zone.
    public static func finalize(moment: Date, subscriberZone: ZoneRules, quietHours: QuietHours?,
                                policy: QuietHours.Policy) -> Moments.Result {
        var final = moment
        var shifted = false
        if policy == .shift, let quietHours,
           let end = quietHoursEnd(after: moment, quietHours: quietHours, in: subscriberZone) {
            final = end
            shifted = true
        }
        return Moments.Result(moment: final, fireAt: subscriberZone.wallClock(at: final), shiftedByQuietHours: shifted)
    }

    /// The moment of a local window whose wait is `waitUntil: {time, timezone}`: the next
    /// occurrence of `time` in `zone` at or after `waitBegins`, then quiet hours and
    /// `fireAt` in the subscriber's zone. This is what `Tests/BuzzEngineTests/Fixtures/moments.json` (docs/contract.md §3) checks.
    public static func localWindow(time: WallClockTime, zone: ZoneRules, subscriberZone: ZoneRules,
                                   waitBegins: Date, quietHours: QuietHours?, policy: QuietHours.Policy) -> Moments.Result {
        let raw = nextOccurrence(of: time, in: zone, atOrAfter: waitBegins)
        return finalize(moment: raw, subscriberZone: subscriberZone, quietHours: quietHours, policy: policy)
    }

    /// A computed moment: the instant, the wall clock handed to devices, and whether quiet
    /// hours moved it. The `buzzkit moment` command prints exactly this.
    public struct Result: Sendable, Hashable {
        /// The instant the notification is due.
        public var moment: Date
        /// The wall-clock components of `moment` in the subscriber's zone.
        public var fireAt: FireAt
        /// Whether quiet hours moved the moment.
        public var shiftedByQuietHours: Bool

        /// `{"moment": "2026-11-30T12:00:00Z", "fireAt": {…}, "shiftedByQuietHours": false}`,
        /// the shape of `Tests/BuzzEngineTests/Fixtures/moments.json`'s `expect`.
        public var jsonText: String {
            var writer = JSONWriter(capacity: 160)
            writer.beginObject()
            writer.member("moment", instant: moment)
            writer.member("fireAt", fireAt)
            writer.member("shiftedByQuietHours", shiftedByQuietHours)
            writer.endObject()
            return writer.string
        }
    }
}
