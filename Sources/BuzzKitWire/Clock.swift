import Foundation

/// The one source of "now" for the server, the SDK and the simulator: injected everywhere,
/// never `Date()` inside logic. ``SystemClock`` is the real one; tests use `ManualClock`
/// (the `BuzzTesting` target), which moves only when told to.
///
/// The zone belongs to the clock because on a phone a floating `fireAt` turns into an instant
/// only in the zone the device is in: changing it moves every pending notification's fire
/// instant. The server's logic reads only ``now`` (its zones come from subscribers).
public protocol Clock: Sendable {
    /// The current instant.
    var now: Date { get }
    /// The device's current time zone (the server's clock: the process's zone, unused).
    var timeZone: TimeZone { get }
    /// Suspends until `deadline` (returns at once when it has passed). Throws
    /// `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}
