import BuzzEngine
import BuzzPipeline
import BuzzServerCore
import BuzzStore
import Foundation

/// Writes the windows decided at their moment outside their runs (``WindowDecider``) into
/// their runs, run by `buzzkit scheduler` beside it.
///
/// A decision older than ``CompletionSettings/delaySeconds`` is taken with its run in one
/// short transaction per batch: the decision rows are taken, deleted and returned by one
/// statement with `SKIP LOCKED` (so any number of completers run side by side, and nothing
/// looks them up again by run), the runs locked in id order, the decisions and every other
/// pending fact folded in (``PendingFacts``: the window "scheduled on device", the run
/// completed) and the runs written. A run another stage decided meanwhile (a cancel folded
/// the decision in first) is left as it is; its decision row goes all the same.
///
/// The writes are bookkeeping, and they yield to the moment's work: while timers are due and
/// not yet claimed (the ``Scheduler`` beside it came back from a full round), or
/// `fallback-check` has messages ready in RabbitMQ or waiting in workers of the same process,
/// the completer pauses after each batch so that it works at most
/// ``CompletionSettings/share`` of the time (``LaneGate``, as bulk work yields to interactive
/// work). A 07:00 burst longer than the completion delay is decided first and
/// written after; a steady load still gets its runs written, at that share at least.
public final class WindowCompleter: Service, @unchecked Sendable {
    public let name = "window-completer"
    let context: PipelineContext
    let settings: CompletionSettings
    let gate: LaneGate?
    private let shutdownRequest = ShutdownRequest()

    /// - Parameters:
    ///   - broker: where to ask for `fallback-check`'s depth; nil yields to the process's own
    ///     scheduler and workers alone.
    ///   - scheduler: the scheduler in the same process, whose backlog counts as the moment's
    ///     work waiting.
    ///   - workers: the workers in the same process; the `fallback-check` deliveries they hold
    ///     and have not begun count too (RabbitMQ counts them as taken, not ready).
    public init(context: PipelineContext, settings: CompletionSettings, broker: (any Broker)? = nil, scheduler: Scheduler? = nil,
                workers: WorkerService? = nil) {
        self.context = context
        self.settings = settings
        if broker != nil || scheduler != nil || workers != nil {
            gate = LaneGate(share: settings.share, partner: .fallbackCheck, broker: broker) {
                (scheduler?.isBehind == true ? 1 : 0) + (workers?.waiting(.fallbackCheck) ?? 0)
            }
        } else {
            gate = nil
        }
    }

    /// Completes batches until shut down: at once while full batches come back, otherwise
    /// every second. A failure (PostgreSQL away) is logged and tried again a second later.
    public func run() {
        var failing = false
        while !shutdownRequest.wait(upTo: 0) {
            var pause = 1.0
            do {
                let started = Date()
                if try completeBatch() >= settings.batch {
                    pause = settings.pauseSeconds
                    gate?.yield(afterBusy: Date().timeIntervalSince(started)) { shutdownRequest.wait(upTo: 0) }
                }
                if failing { context.log.info("window completer recovered") }
                failing = false
            } catch {
                if !failing { context.log.warning("window completion failed; trying again", ["error": "\(error)"]) }
                failing = true
            }
            if shutdownRequest.wait(upTo: pause) { return }
        }
    }

    public func shutdown(deadline: Date) { shutdownRequest.request(by: deadline) }

    /// Writes one batch of decisions made before now minus the delay into their runs;
    /// returns how many runs it took.
    @discardableResult
    public func completeBatch() throws -> Int {
        let now = context.clock.now
        return try context.store.transaction { tx in
            let taken = try tx.takeWindowDecisions(decidedBefore: now.addingTimeInterval(-settings.delaySeconds), limit: settings.batch)
            guard !taken.isEmpty else { return 0 }
            let decisions = Dictionary(grouping: taken, by: \.runId)
            var runs: [UUID: RunRecord] = [:]
            for run in try tx.lockRuns(Array(decisions.keys)) { runs[run.id] = run }
            let caused = try PendingFacts.fold(into: &runs, tx: tx, decisions: .given(decisions))
            let updated = caused.keys.sortedByBytes().compactMap { runs[$0] }
            try tx.updateRuns(updated)
            var outbox = RunActions.Pending()
            for run in updated {
                try context.actions.collect(caused[run.id] ?? [], run: run, tx: tx, now: now, into: &outbox)
            }
            _ = try context.actions.flush(outbox, tx: tx, now: now)
            context.metrics.increment("buzzkit_windows_completed_total", by: Double(updated.count),
                                      help: "Settled windows written into their runs by the window completer")
            return decisions.count
        }
    }
}
