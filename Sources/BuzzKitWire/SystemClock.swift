import Foundation

/// The real clock, with a time zone that defaults to the process's zone and can be changed
/// (the device simulator gives each phone its own zone).
public final class SystemClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var zone: TimeZone

    /// The real clock in `timeZone` (by default the system zone, following its changes).
    public init(timeZone: TimeZone = .autoupdatingCurrent) {
        zone = timeZone
    }

    /// `Date()`.
    public var now: Date { Date() }

    /// The device's current zone.
    public var timeZone: TimeZone { lock.withLock { zone } }

    /// Moves the device to another zone (a traveller landing).
    public func setTimeZone(_ timeZone: TimeZone) {
        lock.withLock { zone = timeZone }
    }

    /// Sleeps with `Task.sleep`, which suspends without holding a thread.
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return }
        // At most a year at a time (`Date.distantFuture` would overflow the nanoseconds).
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 365 * 86_400) * 1_000_000_000))
    }
}
