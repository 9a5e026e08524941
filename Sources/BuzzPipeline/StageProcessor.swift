import BuzzServerCore
import BuzzStore
import Foundation

/// Processes a batch of decoded items for one queue and returns the outbox rows to relay.
struct StageProcessor {
    let context: PipelineContext

    func process(_ items: [WorkItem]) throws -> [Outbox.Row] {
        var events: [EventProcessor.Item] = []
        var timers: [TimerProcessor.Item] = []
        var sends: [PipelineMessage] = []
        func sort(_ message: PipelineMessage) {
            if case .timer(let tenantId, let runId, let timer, let window) = message {
                timers.append(.init(tenantId: tenantId, runId: runId, timer: timer, window: window))
            } else {
                sends.append(message)
            }
        }
        for item in items {
            switch item {
            case .event(let event): events.append(event)
            case .message(let message): sort(message)
            case .messages(let messages): messages.forEach(sort)
            }
        }
        var rows: [Outbox.Row] = []
        if !events.isEmpty {
            let committed = try context.store.transaction { try EventProcessor(context: context).process(events, tx: $0) }
            rows += SendProcessor(context: context).sendAfterCommit(committed)
        }
        if !timers.isEmpty {
            rows += try context.store.transaction { try TimerProcessor(context: context).process(timers, tx: $0) }
        }
        if !sends.isEmpty {
            try SendProcessor(context: context).process(sends)
        }
        return rows
    }
}
