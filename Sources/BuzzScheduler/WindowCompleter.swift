import BuzzEngine
import BuzzPipeline
import BuzzServerCore
import BuzzStore
import Foundation

/// Files the runs whose last window was decided at its moment outside the run
/// (``WindowDecider``) under `completed`, run by `buzzkit scheduler` beside it.
///
/// The run learns the decision once, on read: every stage that reads it folds the
/// `window_decisions` row in (``PendingFacts``), and its stored state is never rewritten for
/// it. What the completer changes is what run search, the console and retention read: the
/// run's status and `updated_at`. A decision older than ``CompletionSettings/delaySeconds`` is
/// marked filed and its run's status set by one statement per batch, with `SKIP LOCKED` (so any
/// number of completers run side by side). A run another stage changed meanwhile (a cancel
/// folded the decision in first, or cancelled it before) keeps its status.
///
/// The writes are bookkeeping, and they yield to the moment's work: while timers are due and
/// not yet claimed (the ``Scheduler`` beside it came back from a full round), or
/// `fallback-check` has messages ready in RabbitMQ or waiting in workers of the same process,
/// the completer pauses after each batch so that it works at most
/// ``CompletionSettings/share`` of the time (``LaneGate``, as bulk work yields to interactive
/// work). A 07:00 burst longer than the completion delay is decided first and
/// filed after; a steady load still gets its runs filed, at that share at least.
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

    /// Files the runs of one batch of decisions made before now minus the delay; returns how
    /// many decisions it took.
    @discardableResult
    public func completeBatch() throws -> Int {
        let now = context.clock.now
        let taken = try context.store.transaction { tx in
            let taken = try tx.completeDecidedRuns(decidedBefore: now.addingTimeInterval(-settings.delaySeconds), limit: settings.batch)
            if !taken.toFold.isEmpty { try fold(taken.toFold, tx: tx, now: now) }
            return taken
        }
        context.metrics.increment("buzzkit_windows_completed_total", by: Double(taken.filed.count + taken.toFold.count),
                                  help: "Runs whose settled window the window completer filed under completed")
        return taken.filed.count + taken.toFold.count
    }

    /// Writes the decisions of servers from before migration 0025 into their runs, as those
    /// servers' completers did: such a decision may belong to a run that went on to further
    /// steps, so only the engine can tell the run's status.
    private func fold(_ runIds: [UUID], tx: any StoreTransaction, now: Date) throws {
        var runs: [UUID: RunRecord] = [:]
        for run in try tx.lockRuns(runIds) { runs[run.id] = run }
        let caused = try PendingFacts.fold(into: &runs, tx: tx)
        let updated = caused.keys.sortedByBytes().compactMap { runs[$0] }
        try tx.updateRuns(updated)
        var outbox = RunActions.Pending()
        for run in updated {
            try context.actions.collect(caused[run.id] ?? [], run: run, tx: tx, now: now, into: &outbox)
        }
        _ = try context.actions.flush(outbox, tx: tx, now: now)
    }
}
