import Foundation

/// The device's clock and time zone: the only source of "now" in the SDK.
///
/// The zone belongs to the clock because a floating `fireAt` turns into an instant only in
/// the zone the device is in; changing it moves every pending notification's fire instant.
public protocol DeviceClock: Sendable {
    /// The current instant.
    var now: Date { get }
    /// The device's current time zone.
    var timeZone: TimeZone { get }
    /// Suspends until `deadline` (returns at once when it has passed). Throws
    /// `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}
