import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation

/// The windows decided at their moment, as `window_decisions` keeps them.
extension InMemoryStoreTransaction {
    func recordWindowDecisions(_ decisions: [WindowDecision], learntByRuns: Bool) throws -> [WindowDecision] {
        write { state in
            var recorded: [WindowDecision] = []
            // As PostgreSQL, which has no foreign key to runs here: a decision of a run that is
            // gone is recorded, and the window completer takes it without a run to file.
            for decision in decisions {
                let key = InMemoryStore.key(decision.runId.lowercasedText, decision.localId)
                guard state.windowDecisions[key] == nil else { continue }
                state.windowDecisions[key] = decision
                if learntByRuns { state.filedDecisions.insert(key) }
                recorded.append(decision)
            }
            return recorded
        }
    }

    func windowDecisions(runIds: [UUID]) throws -> [UUID: [WindowDecision]] {
        let wanted = Set(runIds)
        return read { state in Dictionary(grouping: state.windowDecisions.values.filter { wanted.contains($0.runId) }, by: \.runId) }
    }

    func completeDecidedRuns(decidedBefore: Date, limit: Int) throws -> (filed: [WindowDecision], toFold: [UUID]) {
        write { state in
            let due = state.windowDecisions.filter { !state.filedDecisions.contains($0.key) && $0.value.decidedAt < decidedBefore }
                .sorted { $0.value.decidedAt < $1.value.decidedAt }.prefix(limit)
            for (key, decision) in due {
                state.filedDecisions.insert(key)
                // This twin keeps a run's status in its state, so it files the run under
                // `completed` by feeding it the decision (PostgreSQL sets the status column and
                // leaves the state as it was; every reader folds the decision in).
                if var run = state.runs[decision.runId], run.state.status == .running || run.state.status == .waiting {
                    _ = decision.apply(to: &run.state)
                    state.runs[decision.runId] = run
                }
            }
            return (due.map(\.value), [])  // every decision here says whether its run learnt it
        }
    }
}
