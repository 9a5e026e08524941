import BuzzServerCore
import BuzzStore
import Foundation

/// How interactive work is kept ahead of bulk work (campaigns), and one tenant's burst away
/// from every other tenant's events. Read from `BUZZKIT_LANE_*` and checked like the rest of
/// ``Configuration``.
///
/// - An event is bulk when it is sent to the bulk lane (`POST /v1/events/bulk`, or the
///   `buzzkit.events.bulk` exchange), or when its tenant's unmarked events at one API process
///   run past ``interactiveEventsPerSecond`` (burst ``interactiveEventBurst``): the excess is
///   accepted as usual and handled in the bulk lane, so one tenant's flood cannot fill the
///   queue every tenant's interactive events wait in.
/// - A bulk run's plans take `plan-dispatch-bulk`, unless the moment is within
///   ``urgentPlanSeconds``: then they go out with the interactive plans.
/// - A bulk consumer uses at most ``bulkShare`` of its time while its interactive partner
///   queue has messages waiting, and all of it otherwise.
/// - A plan whose moment is less than ``planMinimumLeadSeconds`` away when its turn comes is
///   not sent: it could not be scheduled in time, and the fallback at the moment covers it.
/// - With ``triggerSends``, the trigger stage makes a new run's first sends itself, inside the
///   transaction that starts the run: its alerts (a push step at the start, the fallback of a
///   window whose moment had passed) and its plans when they would take the interactive
///   `plan-dispatch` queue. Bulk plans, and the sends of runs other stages move, still go
///   through their queues.
public struct LaneSettings: Sendable, Equatable, EnvironmentSettings {
    /// Unmarked events a second per tenant that stay interactive, per API process
    /// (`BUZZKIT_LANE_INTERACTIVE_EVENTS_PER_SECOND`, default 1,000).
    public var interactiveEventsPerSecond = 1_000
    /// Unmarked events a tenant may send at once before the rest go bulk
    /// (`BUZZKIT_LANE_INTERACTIVE_EVENT_BURST`, default 2,000: two full batches).
    public var interactiveEventBurst = 2_000
    /// A bulk run's plan whose moment is within this many seconds takes the interactive lane
    /// (`BUZZKIT_LANE_URGENT_PLAN_SECONDS`, default 600).
    public var urgentPlanSeconds: Double = 600
    /// Share of a bulk consumer's time while interactive work waits
    /// (`BUZZKIT_LANE_BULK_SHARE`, default 0.2).
    public var bulkShare: Double = 0.2
    /// The least lead a plan is still sent with, in seconds
    /// (`BUZZKIT_LANE_PLAN_MINIMUM_LEAD_SECONDS`, default 1).
    public var planMinimumLeadSeconds: Double = 1
    /// Whether the trigger stage makes a new run's first sends itself
    /// (`BUZZKIT_LANE_TRIGGER_SENDS`, default true). It saves each window a queue hop, a claim
    /// and a transaction; false hands every send to `plan-dispatch` and `fallback-check`, so
    /// pushes scale apart from the trigger stage (a slow push provider then holds up pushes,
    /// not runs).
    public var triggerSends = true

    public init() {}

    public static var settings: [Setting<Self>] {
        [.number("BUZZKIT_LANE_INTERACTIVE_EVENTS_PER_SECOND", \.interactiveEventsPerSecond, in: 1...10_000_000),
         .number("BUZZKIT_LANE_INTERACTIVE_EVENT_BURST", \.interactiveEventBurst, in: { min($0.interactiveEventsPerSecond, 10_000_000)...10_000_000 },
                 note: " (BUZZKIT_LANE_INTERACTIVE_EVENTS_PER_SECOND)"),
         .number("BUZZKIT_LANE_URGENT_PLAN_SECONDS", \.urgentPlanSeconds, in: 0...86_400, unit: "seconds"),
         .number("BUZZKIT_LANE_BULK_SHARE", \.bulkShare, above: 0, atMost: 1),
         .number("BUZZKIT_LANE_PLAN_MINIMUM_LEAD_SECONDS", \.planMinimumLeadSeconds, in: 0...3600, unit: "seconds"),
         .flag("BUZZKIT_LANE_TRIGGER_SENDS", \.triggerSends)]
    }

    /// The queue `message` of a run takes. A bulk run's plans go to `plan-dispatch-bulk` while
    /// their moment is more than ``urgentPlanSeconds`` away, and its wait timers to the same
    /// lane; cancels always go interactive (one that waited could arrive after the moment),
    /// as do local-window timers (`fallback-check` has one lane).
    public func queue(of message: PipelineMessage, bulk: Bool, now: Date) -> Topology.Queue {
        let queue = message.queue
        guard bulk else { return queue }
        switch message {
        case .sendPlan(_, _, _, let delivery):
            return delivery.moment.timeIntervalSince(now) > urgentPlanSeconds ? queue.inLane(.bulk) : queue
        case .timer:
            return queue.inLane(.bulk)
        case .sendAlert, .sendCancel:
            return queue
        }
    }
}
