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
    let workUntil: Date
    /// When the wake answers, held plans included.
    let answerBy: Date

    /// The part of the budget kept for the hold: a fifth, at most 3 s.
    static func reserve(forBudget budget: TimeInterval) -> TimeInterval {
        min(3, budget / 5)
    }

    /// How many turns on a thread the answer takes after the ordinary work stops (the timer,
    /// the client's actor, the task that called the SDK, the main thread), with as many again
    /// to spare.
    static let turnsToAnswer: Double = 8

    /// A wake the SDK first ran for at `startedAt`, on a process whose waits lately came back
    /// `lateReturn` seconds after their deadline (``DeadlineLateness``).
    ///
    /// - The wait since `began` (at least two turns on a thread: the task that called the SDK
    ///   and its actor; a launch's `configure` too) shows how long each later turn may wait:
    ///   the ordinary work stops eight such turns before the answer is due. A wake that waited
    ///   1.5 s to start stops 6 s before it must answer, not 3 s.
    /// - The wait for the work that comes back late holds the answer that much: the work stops
    ///   `lateReturn` before the answer is due (iOS's 30 s leave the budget's last seconds for
    ///   the hold's and the answer's own turns).
    ///
    /// When the process gives the app a thread at once, nothing changes.
    init(began: Date, budget: TimeInterval, startedAt: Date?, lateReturn: TimeInterval) {
        self.began = began
        answerBy = began.addingTimeInterval(budget)
        var work = answerBy.addingTimeInterval(-Self.reserve(forBudget: budget))
        if let startedAt {
            let perTurn = max(0, startedAt.timeIntervalSince(began)) / 2
            work = min(work, answerBy.addingTimeInterval(-Self.turnsToAnswer * perTurn))
        }
        workUntil = min(work, answerBy.addingTimeInterval(-max(0, lateReturn)))
    }
}
