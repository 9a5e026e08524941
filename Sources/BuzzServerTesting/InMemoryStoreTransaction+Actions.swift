import BuzzServer
import Foundation

/// Buttons chosen on notifications in memory (as `PostgresStore+Runs.swift` records them).
extension InMemoryStoreTransaction {
    func recordAction(tenantId: String, subscriberId: String, messageId: String, actionId: String, at: Date) throws {
        write { state in
            // Only a message sent for one of this subscriber's runs; a repeat is stored once.
            let own = state.deliveries.values.contains { delivery in
                delivery.messageId == messageId && delivery.runId.flatMap { state.runs[$0] }.map { $0.tenantId == tenantId && $0.subscriberId == subscriberId } == true
            }
            guard own, !state.actions.contains(where: {
                $0.tenantId == tenantId && $0.messageId == messageId && $0.actionId == actionId && $0.at == at
            }) else { return }
            state.actions.append((tenantId, messageId, actionId, at))
        }
    }
}
