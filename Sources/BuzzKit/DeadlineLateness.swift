import Foundation

/// How late this process's waits came back after their deadline lately: the time between a
/// wait's deadline and the client's actor running again for it (the timer's turn on a thread,
/// then the actor's).
///
/// A phone that is slow to give the app a thread (under load; the simulator's ten thousand
/// phones on two cores) makes every wait of a wake come back late, and the wake's answer with
/// it: in the all-at-once fleet, a settle due at 17 s came back 3–13 s late while the wake had
/// started within a second, so the start alone (``WakeDeadline/init(began:budget:startedAt:lateReturn:)``)
/// did not show it. The latest lateness is kept, fading by half every ``halfLife`` seconds, so
/// a burst shortens the wakes within it and the phone returns to full wakes after it.
struct DeadlineLateness: Sendable {
    /// Seconds after which a lateness counts half.
    static let halfLife: TimeInterval = 20

    private var seconds: TimeInterval = 0
    private var at = Date.distantPast

    /// How late a wait is expected to come back now, in seconds.
    func expected(at now: Date) -> TimeInterval {
        guard seconds > 0 else { return 0 }
        return seconds * pow(0.5, max(0, now.timeIntervalSince(at)) / Self.halfLife)
    }

    /// A wait came back `late` seconds after its deadline, at `now`. At most `cap` counts: a
    /// wait that spanned a suspension (its timer fires only when the app runs again) says
    /// nothing about the thread, and one such wait must not cut the next wakes short.
    mutating func record(_ late: TimeInterval, at now: Date, cap: TimeInterval) {
        let sample = min(max(0, late), max(0, cap))
        guard sample >= expected(at: now) else { return }
        seconds = sample
        at = now
    }
}
