import BuzzEngine
import Foundation

/// A plan as its silent push carries it, recorded when its run sends it
/// (``StoreTransaction/recordPlans(_:at:)``): what a device's sync lists, what an
/// acknowledgment must name, and what the fallback is built from.
public struct SentPlan: Sendable {
    public var tenantId: String
    /// The subscriber the plan is for; nil for a run without one (it reaches no device).
    public var subscriberId: String?
    public var delivery: LocalPlanDelivery

    public init(tenantId: String, subscriberId: String?, delivery: LocalPlanDelivery) {
        self.tenantId = tenantId
        self.subscriberId = subscriberId
        self.delivery = delivery
    }
}
