import BuzzStore
import Foundation

/// The console's reads over the in-memory tables, by the PostgreSQL driver's rules.
extension InMemoryStoreTransaction {
    func minuteActivity(tenantId: String, since: Date, until: Date) throws -> [MinuteActivity] {
        read { state in
            var found: [Date: MinuteActivity] = [:]
            for delivery in state.deliveries.values {
                guard let runId = delivery.runId, state.runs[runId]?.tenantId == tenantId else { continue }
                guard delivery.at >= since, delivery.at <= until else { continue }
                let minute = MinuteActivity.minute(of: delivery.at)
                found[minute, default: MinuteActivity(minute: minute)].count(kind: delivery.kind, status: delivery.outcome?.status ?? "pending")
            }
            for (key, plan) in state.plans {
                let moment = plan.delivery.moment
                guard moment >= since, moment <= until, key == InMemoryStore.key(tenantId, plan.delivery.localId) else { continue }
                let minute = MinuteActivity.minute(of: moment)
                if state.fallbacksDecided.contains(key) {
                    found[minute, default: MinuteActivity(minute: minute)].fallback += 1
                } else if state.acknowledgments.contains(where: { key, holding in
                    holding.localId == plan.delivery.localId && holding.scheduledAt != nil
                        && key.hasPrefix(InMemoryStore.key(tenantId, plan.subscriberId ?? "", plan.delivery.localId))
                }) {
                    found[minute, default: MinuteActivity(minute: minute)].acknowledged += 1
                }
            }
            return found.values.sorted { $0.minute < $1.minute }
        }
    }
}
