import BuzzKitWire
import Foundation

/// A workflow run as a pure state machine: a `Codable` value that a runner loads, feeds one
/// input with ``handle(_:now:)``, and stores again together with the returned actions.
///
/// **Driving it from a worker pool.** For each input (the start after a trigger, a due
/// timer, an event of the subscriber, an acknowledgment, a plan-delivery count, an API
/// cancel): `SELECT … FOR UPDATE` the run row, decode the state, optionally ``refresh(hasSubscriber:subscriberTimeZone:tenantDefaultTimeZone:quietHours:)``
/// the subscriber and tenant settings, call `handle`, then in the same transaction write
/// the state back and persist the actions: ``RunAction/scheduleTimer(_:)`` as a timer row
/// (unique on ``RunTimer/id``), ``RunAction/cancelTimers(runId:)`` as a delete, sends as
/// outbox rows (unique on their idempotency key, local id or run id). The machine never
/// reads a clock: `now` is the only time it knows, so a retry after a rollback is safe.
///
/// **Guarantees.** Stale or duplicated timers are ignored; a local window decides its
/// fallback exactly once; a dry run never emits a send; after a cancel nothing is sent
/// except the one `bk.cancel`; acknowledgments are idempotent. ``revision`` grows with every
/// call that changed the state.
///
/// **Decisions beyond the contract.**
/// - A local window's moment that is at or before `now` when its wait begins (only possible
///   with `at`, or a `time` that is exactly now) gets no plan: the notification goes at once
///   as an ordinary push through the fallback path (reason "the moment had passed when the
///   wait began"). Quiet hours still apply: if `now` is quiet and the policy is `shift`, the
///   moment moves to the window's end and the window proceeds normally.
/// - A push send reached inside quiet hours (policy `shift`) waits for the window's end.
/// - Dry runs run in real time: they schedule timers like a live run. A runner may fast
///   forward one by firing each timer at once with `now` set to the timer's `at`.
/// - Runtime errors (an `at` template that does not resolve, a body over 4096 bytes after
///   templates are filled in) fail the run: status `failed`, the step `failed`, ``failure`` set.
/// - A run with no subscriber computes everything and sends nothing (no fallback).
public struct RunState: Sendable, Hashable {
    /// The definition the run started with (a snapshot: later edits do not affect it).
    public let workflow: WorkflowDefinition
    /// The event that started the run.
    public let trigger: BuzzEvent
    /// Identity and settings.
    public internal(set) var context: RunContext
    /// The run's status.
    public internal(set) var status: RunStatus
    /// Whether ``RunInput/start`` has been handled.
    public internal(set) var started: Bool
    /// The step the run is in (waiting); `nil` before the start and after the end.
    public internal(set) var cursor: StepPath?
    /// The sequence number of the last timer scheduled.
    public internal(set) var generation: Int
    /// The timer the run is waiting for, if any.
    public internal(set) var pendingTimer: RunTimer?
    /// The steps begun so far, in order.
    public internal(set) var steps: [StepRecord]
    /// The index in ``steps`` of the local window awaiting its moment.
    public internal(set) var openWindow: Int?
    /// Whether any plan was handed to devices (a cancel then sends `bk.cancel`).
    public internal(set) var planSent: Bool
    /// How the run was cancelled.
    public internal(set) var cancellation: RunSummary.Cancellation?
    /// Why the run failed.
    public internal(set) var failure: EngineError?
    /// Grows by one with every ``handle(_:now:)`` that changed the state.
    public internal(set) var revision: Int

    /// A run that has not started; call ``handle(_:now:)`` with ``RunInput/start``.
    public init(workflow: WorkflowDefinition, trigger: BuzzEvent, context: RunContext) {
        self.workflow = workflow
        self.trigger = trigger
        self.context = context
        self.status = .running
        self.started = false
        self.cursor = nil
        self.generation = 0
        self.pendingTimer = nil
        self.steps = []
        self.openWindow = nil
        self.planSent = false
        self.cancellation = nil
        self.failure = nil
        self.revision = 0
    }

    /// The run id.
    public var runId: String { context.runId }

    /// Replaces the settings that may change during a run. They are read when a wait or a
    /// send begins; a window already planned keeps its moment.
    public mutating func refresh(hasSubscriber: Bool, subscriberTimeZone: String?, tenantDefaultTimeZone: String?,
                                 quietHours: QuietHours?) {
        context.hasSubscriber = hasSubscriber
        context.subscriberTimeZone = subscriberTimeZone
        context.tenantDefaultTimeZone = tenantDefaultTimeZone
        context.quietHours = quietHours
    }

    /// The run summary (docs/contract.md §4), derived from the state.
    public var summary: RunSummary {
        RunSummary(id: runId, workflow: workflow.key, subscriberId: trigger.subscriberId, dryRun: context.dryRun,
                   status: status, steps: steps.map(\.summary), cancelled: cancellation)
    }

    /// The record of the step at a path, if it has begun.
    public func record(at path: StepPath) -> StepRecord? {
        recordIndex(at: path).map { steps[$0] }
    }

    func recordIndex(at path: StepPath) -> Int? {
        steps.lastIndex { $0.path == path }
    }
}
