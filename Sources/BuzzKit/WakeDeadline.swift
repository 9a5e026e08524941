import Foundation

/// When a wake (a silent push, the app leaving the screen, the network coming back) must be
/// done, counted from when it began, not from when the SDK got to it.
///
/// iOS gives an app woken for a silent push about 30 s from the push's delivery and then
/// suspends it, wherever its code is; an app that often overruns gets fewer pushes ("Pushing
/// background updates to your App", Apple's documentation). So a wake answers by
/// ``answerBy`` (the whole ``Configuration/backgroundBudget``, at most 25 s), whatever the
/// network, the server or the SDK's own queue of state changes does. Its ordinary work
/// (applying the push, requests, reconciliation) stops waiting at ``workUntil``; the rest of
/// the budget is kept for the one thing that must happen before a suspension: holding back
/// plans whose acknowledgment did not reach the server.
struct WakeDeadline: Sendable {
    /// When the wake began.
    let began: Date
    /// When the wake stops waiting for its ordinary work.
    private(set) var workUntil: Date
    /// When the wake answers, held plans included.
    let answerBy: Date

    /// The part of the budget kept for the hold: a fifth, at most 3 s.
    static func reserve(forBudget budget: TimeInterval) -> TimeInterval {
        min(3, budget / 5)
    }

    init(began: Date, budget: TimeInterval) {
        self.began = began
        answerBy = began.addingTimeInterval(budget)
        workUntil = answerBy.addingTimeInterval(-Self.reserve(forBudget: budget))
    }

    /// How many turns on a thread the answer takes after the ordinary work stops (the timer,
    /// the client's actor, the task that called the SDK, the main thread), with as many again
    /// to spare.
    static let turnsToAnswer: Double = 8

    /// A wake the SDK first ran for at `startedAt`: the wait since `began` (at least two turns
    /// on a thread: the task that called the SDK and its actor; a launch's `configure` too)
    /// shows how long each later turn may wait. When the process is that slow to get a thread
    /// (a phone under load; the simulator's ten thousand phones on two cores), the ordinary
    /// work stops earlier, so that the hold and the answer still come within the budget: a
    /// wake that waited 1.5 s to start stops 6 s before it must answer, not 3 s.
    init(began: Date, budget: TimeInterval, startedAt: Date) {
        self.init(began: began, budget: budget)
        let perTurn = max(0, startedAt.timeIntervalSince(began)) / 2
        workUntil = min(workUntil, answerBy.addingTimeInterval(-Self.turnsToAnswer * perTurn))
    }
}
