import Foundation

extension BuzzKitClient {
    /// A wake's deadlines: its budget from `began`, its work stopped earlier on a process slow
    /// to start it (`startedAt`) or whose waits lately came back late.
    func wakeDeadline(began: Date, startedAt: Date? = nil) -> WakeDeadline {
        WakeDeadline(began: began, budget: configuration.backgroundBudget, startedAt: startedAt,
                     lateReturn: deadlineLateness.expected(at: clock.now))
    }

    /// A wake begins (a silent push, a background launch, the app leaving the screen, the
    /// network coming back): the app runs, so new plans go into the notification center again.
    func wakeBegan(_ wake: WakeDeadline) {
        activeWakes += 1
        suspending = false
        wakesWorkUntil = max(wakesWorkUntil ?? wake.workUntil, wake.workUntil)
    }

    /// The end of a wake in the background: waits for the running requests until the wake's
    /// `workUntil`; then, if it is the last wake running and the app is not on screen, holds
    /// back the unconfirmed plans, since iOS suspends the app once every wake has answered.
    /// Pairs with ``wakeBegan()``. A silent push's wake answers at once; a wake whose work
    /// should reach the server before iOS suspends the app first retries, within its
    /// `workUntil`, its queued events (`retryingEvents`, see ``EventRetry``) and a failed
    /// registration (`retryingRegistration`: the app is leaving, and its background task may
    /// wait for it).
    func endWake(_ wake: WakeDeadline, retryingEvents: EventRetry = .never, retryingRegistration: Bool = false) async {
        if inForeground {
            activeWakes -= 1
            await settle()
            return
        }
        await settle(until: wake.workUntil)
        if retryingEvents == .always || (retryingEvents == .afterAnAnswer && lastFlushAnswered) {
            await retryEvents(until: wake.workUntil)
        }
        if retryingRegistration { await retryRegistration(until: wake.workUntil) }
        activeWakes -= 1
        await holdUnconfirmedPlans()
    }

    /// Whether a wake sends its queued events again before it ends (``endWake(_:retryingEvents:retryingRegistration:)``).
    enum EventRetry {
        /// A silent push's wake: it answers at once.
        case never
        /// A button chosen on the lock screen: the person's word is retried whatever the last
        /// failure was.
        case always
        /// The app leaving the screen: retried only when the server answered the last flush
        /// (it could not take the events yet). Offline, the network's return is a wake of its own.
        case afterAnAnswer
    }

    /// Takes every pending plan whose acknowledgment is neither confirmed, nor possibly
    /// received (in flight or sent with an ambiguous failure) out of the notification center,
    /// when no wake is running and the app is not on screen. See ``PlanRecord/State/held``.
    ///
    /// It does not wait for the gate: a state change in it can take longer than the wake has
    /// left (a crowded phone's sync under load did). The plans are marked held before the
    /// first await, so a state change resuming meanwhile sees them held; and from here until
    /// the next wake (``suspending``) a plan being added is held instead, checked again after
    /// the add, and parked plans stay parked: nothing may enter the center that nothing would
    /// run to withdraw before the server's fallback.
    func holdUnconfirmedPlans() async {
        guard activeWakes == 0, !inForeground else { return }  // a newer wake holds when it ends
        suspending = true
        let held = book.records.values.filter { $0.state == .scheduled && !mayBeCountedOn($0) }.map(\.localId).sorted()
        guard !held.isEmpty else { return }
        for id in held { book.update(id) { $0.state = .held } }
        saveBook()
        report(.plansHeld(localIds: held))
        await center.removePendingRequests(withIdentifiers: held)
    }
}
