import Foundation

/// One wave of a fleet run: when its events are posted and the moment they plan.
public struct FleetWave: Sendable, Hashable {
    /// The wave's position (0-based).
    public var index: Int
    /// When the wave's `workout.scheduled` events are posted.
    public var postAt: Date
    /// The moment every plan of the wave is for.
    public var moment: Date

    /// Waves `interval` seconds apart from `start`, each planning `lead` seconds ahead
    /// (rounded up to a whole second, as the workflow's `at` is).
    public static func plan(count: Int, start: Date, interval: Double, lead: Double) -> [FleetWave] {
        (0..<max(1, count)).map { index in
            let postAt = start.addingTimeInterval(Double(index) * interval)
            return FleetWave(index: index, postAt: postAt,
                             moment: Date(timeIntervalSince1970: (postAt.timeIntervalSince1970 + lead).rounded(.up)))
        }
    }
}
