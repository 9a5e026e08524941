import BuzzEngine
import BuzzKitWire

/// Filters for the actions a run returned.
extension Array where Element == RunAction {
    var timers: [RunTimer] { compactMap { if case .scheduleTimer(let t) = $0 { t } else { nil } } }
    var plans: [LocalPlanDelivery] { compactMap { if case .sendLocalPlan(let d) = $0 { d } else { nil } } }
    var pushes: [AlertDelivery] { compactMap { if case .sendPush(let d) = $0 { d } else { nil } } }
    var fallbacks: [AlertDelivery] { compactMap { if case .sendFallback(let d) = $0 { d } else { nil } } }
    var cancels: [CancelDelivery] { compactMap { if case .sendCancel(let d) = $0 { d } else { nil } } }
    var sends: [RunAction] { filter(\.isSend) }
    var statuses: [RunStatus] { compactMap { if case .statusChanged(let s) = $0 { s } else { nil } } }
    var cancelsTimers: Bool { contains { if case .cancelTimers = $0 { true } else { false } } }
}
