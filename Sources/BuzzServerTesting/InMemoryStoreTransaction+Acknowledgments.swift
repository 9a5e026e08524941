import BuzzEngine
import BuzzServer
import Foundation

/// Devices' words on plans in memory. The store's lock makes every transaction whole, so a
/// decision and an acknowledgment are ordered without locking a window (PostgreSQL's driver
/// row-locks the plan, see `PostgresStore+Acknowledgments.swift`).
extension InMemoryStoreTransaction {
    func recordAcknowledgments(tenantId: String, _ facts: [DeviceAcknowledgment], at: Date) throws -> AcknowledgmentOutcome {
        write { state in
            var outcome = AcknowledgmentOutcome()
            for var fact in DeviceAcknowledgment.latest(facts) {
                // Only for a plan of that subscriber, as PostgreSQL's driver does.
                guard let plan = state.plans[InMemoryStore.key(tenantId, fact.localId)], plan.subscriberId == fact.subscriberId else { continue }
                if let run = UUID(uuidString: plan.delivery.runId).flatMap({ state.runs[$0] }), run.state.status == .cancelled {
                    if fact.scheduledAt != nil { outcome.cancelled.insert(fact.localId) }
                    continue
                }
                if state.fallbacksDecided.contains(InMemoryStore.key(tenantId, fact.localId)) {
                    if fact.scheduledAt != nil { outcome.late.insert(fact.localId) }
                    fact.scheduledAt = nil
                    if fact.releasedAt == nil { continue }
                }
                let key = InMemoryStore.key(tenantId, fact.subscriberId, fact.localId, fact.device)
                var row = state.acknowledgments[key] ?? PlanHolding(localId: fact.localId, device: fact.device, messageId: nil, acknowledgedAt: at,
                                                                    scheduledAt: nil, releasedAt: nil, deviceCounts: false)
                let scheduledMoved = fact.scheduledAt.map { $0 > (row.scheduledAt ?? .distantPast) } ?? false
                let releasedMoved = fact.releasedAt.map { $0 > (row.releasedAt ?? .distantPast) } ?? false
                guard scheduledMoved || releasedMoved else { continue }
                if scheduledMoved { row.scheduledAt = fact.scheduledAt; row.acknowledgedAt = at }
                if releasedMoved { row.releasedAt = fact.releasedAt }
                row.messageId = row.messageId ?? fact.messageId
                state.acknowledgments[key] = row
                if fact.scheduledAt != nil { outcome.acknowledged += 1 }
                if fact.releasedAt != nil { outcome.released += 1 }
            }
            return outcome
        }
    }

    func lockWindowsForDecision(tenantId: String, localIds: [String]) throws {}

    func markFallbacksDecided(tenantId: String, localIds: [String], at: Date) throws {
        write { state in
            for localId in localIds where state.plans[InMemoryStore.key(tenantId, localId)] != nil {
                state.fallbacksDecided.insert(InMemoryStore.key(tenantId, localId))
            }
        }
    }
}
