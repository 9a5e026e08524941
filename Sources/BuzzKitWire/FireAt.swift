/// The wall-clock components at which a device fires a planned local notification, in
/// whatever time zone the device is in when the plan arrives (a floating time).
///
/// Wire form: `{"year", "month", "day", "hour", "minute", "second"}`.
public struct FireAt: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The year, for example 2026.
    public var year: Int
    /// The month, 1–12.
    public var month: Int
    /// The day of the month, 1–31.
    public var day: Int
    /// The hour, 0–23.
    public var hour: Int
    /// The minute, 0–59.
    public var minute: Int
    /// The second, 0–59.
    public var second: Int

    /// Wall-clock components from their parts.
    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// `YYYY-MM-DDTHH:MM:SS` (no zone: the time floats).
    public var description: String {
        CivilDate(year: year, month: month, day: day).description
            + "T\(CivilDate.pad(hour, 2)):\(CivilDate.pad(minute, 2)):\(CivilDate.pad(second, 2))"
    }

    /// Writes the contract's key order: year, month, day, hour, minute, second.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("year", year)
        writer.member("month", month)
        writer.member("day", day)
        writer.member("hour", hour)
        writer.member("minute", minute)
        writer.member("second", second)
        writer.endObject()
    }
}
