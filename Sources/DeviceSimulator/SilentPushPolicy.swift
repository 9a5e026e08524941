import Foundation

/// How iOS treats background (silent) pushes for one app on one phone: it does not deliver
/// them to an app the person force-quit, it spends a per-device hourly budget on the ones
/// that wake the app in the background (Apple: "the system may throttle… don't try to send
/// more than two or three per hour"), and with Background App Refresh off (as Low Power Mode
/// turns it off: "Background App Refresh is disabled automatically when a device is operating
/// in low-power mode", UIApplication.backgroundRefreshStatus) it does not open the app in the
/// background at all. A push it does not deliver is kept (the newest) and handed over when the
/// app next runs. An app on screen gets them at once.
struct SilentPushPolicy: Sendable {
    /// Silent pushes delivered per rolling hour at most.
    var hourlyBudget: Int
    /// Whether iOS may open the app in the background (Background App Refresh on, no Low
    /// Power Mode).
    var backgroundRefresh: Bool
    private var deliveries: [Date] = []
    /// Background wakes per rolling hour on an ordinary phone.
    static let defaultHourlyBudget = 3

    init(hourlyBudget: Int = SilentPushPolicy.defaultHourlyBudget, backgroundRefresh: Bool = true) {
        self.hourlyBudget = hourlyBudget
        self.backgroundRefresh = backgroundRefresh
    }

    /// What iOS does with a silent push at `now`.
    enum Decision: Equatable {
        /// Wakes the app (or hands it to the app on screen) now.
        case deliver
        /// Past the hourly budget: kept for the app's next run.
        case throttled
        /// Background App Refresh is off: kept for the app's next run.
        case waitsForApp

        /// The decision as a trace says it.
        var word: String {
            switch self {
            case .deliver: "deliver"
            case .throttled: "throttled"
            case .waitsForApp: "waitsForApp"
            }
        }
    }

    mutating func decide(now: Date, inForeground: Bool) -> Decision {
        if inForeground { return .deliver }
        guard backgroundRefresh else { return .waitsForApp }
        deliveries.removeAll { now.timeIntervalSince($0) >= 3_600 }
        guard deliveries.count < hourlyBudget else { return .throttled }
        deliveries.append(now)
        return .deliver
    }
}
