import Foundation

extension BuzzKitClient {
    /// The app came to the foreground (launched by the person, or returned to). Code runs
    /// until it leaves, so timers work: reads the permission, retries a pending logout,
    /// registers, flushes, and reconciles with the server's plan list.
    public func applicationDidBecomeActive() async {
        inForeground = true
        await beginWake()
        await settle()
    }

    /// The app went to the background; iOS suspends it a few seconds later (the Apple layer
    /// asks for background time for this call). Sends what it can within
    /// ``Configuration/backgroundBudget`` (retrying a device registration that failed) and
    /// then holds back every plan whose acknowledgment
    /// has not reached the server, since nothing runs while the app is suspended to
    /// withdraw it before the server's fallback arrives.
    public func applicationDidEnterBackground() async {
        inForeground = false
        await endWake(deadline: clock.now.addingTimeInterval(configuration.backgroundBudget), retryingRegistration: true)
    }

    /// Whether the SDK believes the app is in the foreground.
    public var isInForeground: Bool { inForeground }

    /// The common start of a wake: permission, pending logouts, due work, sync. A wake is a
    /// new chance for the network (a suspended app saw none of the backoff's timers), so what
    /// is queued goes out now, backoff or not: an acknowledgment held back before the last
    /// suspension gets through here, or the plan stays held.
    func beginWake() async {
        if !queue.isEmpty {
            retryAt = nil
            flushDueAt = clock.now
        }
        await refreshAuthorization()
        startPendingLogouts()
        await tick()
        startSync()
    }

    /// The end of a wake in the background: waits for the running requests until
    /// `deadline`, then (unless the app is in the foreground) holds the unconfirmed plans.
    /// `retryingRegistration`: the app is leaving (its background task may wait for the
    /// registration's retries; a silent push's wake answers at once instead).
    func endWake(deadline: Date, retryingRegistration: Bool = false) async {
        guard !inForeground else {
            await settle()
            return
        }
        await settle(until: deadline)
        if retryingRegistration { await retryRegistration(until: deadline) }
        guard !inForeground else { return }
        await withGate { await holdUnconfirmedPlans() }
    }

    /// Retries a failed device registration within the wake's background time. Without it
    /// a person who signed in while the API was briefly unavailable (a database restart)
    /// would have no device on the server until they open the app again: no silent push
    /// wakes the phone for them, and every plan and fallback of theirs goes nowhere.
    func retryRegistration(until deadline: Date) async {
        while !inForeground, registrationTask == nil, !registrationRefused, registrationDue,
              let retryAt = registrationRetryAt, retryAt < deadline {
            try? await clock.sleep(until: retryAt)
            guard !stopped, clock.now >= retryAt else { return }  // shut down, or the sleep was cancelled
            await tick()
            await settle(until: deadline)
        }
    }

    /// Takes every pending plan whose acknowledgment is neither confirmed, nor possibly
    /// received (in flight or sent with an ambiguous failure) out of the notification center
    /// (inside the gate). See ``PlanRecord/State/held``.
    func holdUnconfirmedPlans() async {
        let held = book.records.values.filter { record in
            record.state == .scheduled && !record.acknowledgmentConfirmed && !record.acknowledgmentUncertain
                && !(record.acknowledgmentEventId.map(inFlightEventIds.contains) ?? false)
        }.map(\.localId).sorted()
        guard !held.isEmpty else { return }
        await center.removePendingRequests(withIdentifiers: held)
        for id in held { book.update(id) { $0.state = .held } }
        saveBook()
        report(.plansHeld(localIds: held))
    }

    /// Waits until no flush, sync or registration is in flight, or until `deadline`,
    /// whichever comes first (the requests go on; their results are used when they arrive).
    func settle(until deadline: Date) async {
        let once = Locked(false)
        let clock = self.clock
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume: @Sendable () -> Void = {
                if once.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            Task { await self.settle(); resume() }
            Task { try? await clock.sleep(until: deadline); resume() }
        }
    }
}
