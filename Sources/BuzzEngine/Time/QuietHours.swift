/// A tenant's quiet hours: a half-open window `[start, end)` of wall-clock time in the
/// subscriber's zone. When `start > end` the window spans midnight (`22:00–08:00`).
///
/// Wire form (tenant settings): `{"start": "22:00", "end": "08:00"}`. A window whose start
/// equals its end would be either empty or the whole day, so it is refused.
public struct QuietHours: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The first quiet second.
    public let start: WallClockTime
    /// The first second after the window (not quiet).
    public let end: WallClockTime

    /// A send step's `quietHours`: what to do with a moment inside the quiet hours.
    public enum Policy: String, Sendable, Hashable, Codable, CaseIterable {
        /// Move the moment to the next end of the quiet window (the default).
        case shift
        /// Keep the moment.
        case ignore
    }

    /// A window from its bounds, or `nil` when they are equal.
    public init?(start: WallClockTime, end: WallClockTime) {
        guard start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// Parses `HH:MM-HH:MM` (seconds allowed on either side), as the `moment` command takes it.
    public static func parse(_ text: String) throws(EngineError) -> QuietHours {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = WallClockTime(parsing: String(parts[0])),
              let end = WallClockTime(parsing: String(parts[1]))
        else {
            throw EngineError(code: .invalidTime, path: "quietHours",
                              message: "expected START-END such as 22:00-08:00, got \"\(text)\"")
        }
        guard let window = QuietHours(start: start, end: end) else {
            throw EngineError(code: .invalidValue, path: "quietHours",
                              message: "start and end are both \(start); use different times, or no quiet hours")
        }
        return window
    }

    /// Whether a wall-clock second of the day (0–86399) is quiet.
    public func contains(secondsOfDay: Int) -> Bool {
        let from = start.secondsOfDay, until = end.secondsOfDay
        if from < until { return secondsOfDay >= from && secondsOfDay < until }
        return secondsOfDay >= from || secondsOfDay < until
    }

    /// `HH:MM-HH:MM`.
    public var description: String { "\(start)-\(end)" }

    private enum CodingKeys: String, CodingKey { case start, end }

    /// Decodes `{"start", "end"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(WallClockTime.self, forKey: .start)
        let end = try container.decode(WallClockTime.self, forKey: .end)
        guard let window = QuietHours(start: start, end: end) else {
            throw DecodingError.dataCorruptedError(forKey: .end, in: container,
                                                   debugDescription: "quiet hours start and end must differ")
        }
        self = window
    }

    /// Encodes `{"start", "end"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
    }
}
