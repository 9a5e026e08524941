import Foundation

/// How iOS treats background (silent) pushes for one app on one phone: it does not deliver
/// them to an app the person force-quit, it spends a per-device hourly budget on the ones
/// that wake the app in the background (Apple: "the system may throttle… don't try to send
/// more than two or three per hour"; a throttled push is not delivered), and in Low Power
/// Mode it defers them. An app on screen gets them at once.
struct SilentPushPolicy: Sendable {
    /// Silent pushes delivered per rolling hour at most.
    var hourlyBudget: Int
    /// In Low Power Mode, how long a silent push is deferred.
    var lowPowerDelay: TimeInterval?
    private var deliveries: [Date] = []
    /// Background wakes per rolling hour on an ordinary phone.
    static let defaultHourlyBudget = 3

    init(hourlyBudget: Int = SilentPushPolicy.defaultHourlyBudget, lowPowerDelay: TimeInterval? = nil) {
        self.hourlyBudget = hourlyBudget
        self.lowPowerDelay = lowPowerDelay
    }

    /// What iOS does with a silent push at `now`.
    enum Decision: Equatable {
        case deliver(after: TimeInterval)
        case throttled
    }

    mutating func decide(now: Date, inForeground: Bool) -> Decision {
        if inForeground { return .deliver(after: 0) }
        deliveries.removeAll { now.timeIntervalSince($0) >= 3_600 }
        guard deliveries.count < hourlyBudget else { return .throttled }
        deliveries.append(now)
        return .deliver(after: lowPowerDelay ?? 0)
    }
}
