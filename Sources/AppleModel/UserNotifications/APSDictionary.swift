import AppleModelCore
import Foundation

/// The `aps` dictionary of a remote notification as iOS reads it (Apple, "Generating a remote
/// notification", table "Keys to include in the aps dictionary"): each key's documented type
/// and values. iOS ignores a key it cannot read, so the notification shows without its sound,
/// badge or buttons; the model records that as a broken rule, so a wrong payload fails the run
/// instead of silently losing the presentation.
enum APSDictionary {
    /// `interruption-level`'s documented values.
    static let interruptionLevels: Set<String> = ["passive", "active", "time-sensitive", "critical"]

    /// Records on `device` every key of `aps` whose type or value Apple's table does not allow.
    static func check(_ aps: [AnyHashable: Any], on device: ModelDevice) {
        for (key, value) in aps {
            guard let name = key.base as? String else { continue }
            let fits: Bool
            switch name {
            case "alert": fits = value is String || value is [AnyHashable: Any]
            case "badge": fits = value is Int
            case "sound": fits = value is String || value is [AnyHashable: Any]  // a dictionary for critical alerts
            case "thread-id", "category", "target-content-id", "filter-criteria": fits = (value as? String).map { !$0.isEmpty } ?? false
            case "content-available", "mutable-content": fits = (value as? Int) == 1
            case "relevance-score": fits = (value as? Double).map { (0...1).contains($0) } ?? false
            case "interruption-level": fits = (value as? String).map(interruptionLevels.contains) ?? false
            default: fits = true  // keys of other features (Live Activities, timestamps) are not modelled
            }
            if !fits { device.violate("aps.\(name) is not what Apple documents (\(value))") }
        }
    }
}
