import Foundation

extension BuzzKitClient {
    /// The app came to the foreground (launched by the person, or returned to). Code runs
    /// until it leaves, so timers work: reads the permission, retries a pending logout,
    /// registers, flushes, and reconciles with the server's plan list.
    public func applicationDidBecomeActive() async {
        inForeground = true
        suspending = false
        await beginWake(syncing: foregroundSyncDue)
        await settle()
    }

    /// Whether coming to the foreground syncs: at most once every
    /// ``foregroundSyncInterval`` (a person flicking between apps would otherwise send a
    /// `GET /plans` each time). A push, a regained network, a launch or a sign-in sync whatever
    /// the time.
    var foregroundSyncDue: Bool {
        lastSyncAt.map { clock.now.timeIntervalSince($0) >= Self.foregroundSyncInterval } ?? true
    }

    /// The least time between two syncs for coming to the foreground, in seconds.
    static let foregroundSyncInterval: TimeInterval = 60

    /// The app went to the background; iOS suspends it a few seconds later (the Apple layer
    /// asks for background time for this call). Sends what it can within
    /// ``Configuration/backgroundBudget`` (retrying a device registration that failed) and
    /// then holds back every plan whose acknowledgment
    /// has not reached the server, since nothing runs while the app is suspended to
    /// withdraw it before the server's fallback arrives.
    ///
    /// It reconciles with the notification center first: the app may have added requests of
    /// its own while on screen, and past iOS's 64 the latest-firing were dropped, BuzzKit's
    /// among them. A plan gone that way is let go of (`$local.released`) while the app can
    /// still send it, or the server would count on a plan nobody sees (issue 45, race 5). The
    /// events queued then (that release among them) are retried within the budget when the
    /// server answered that it cannot take them yet: a release lost to a database restart
    /// leaves the server counting on a plan the phone no longer has, and nothing is shown at
    /// the moment. Offline, nothing is retried: the network's return is a wake of its own.
    public func applicationDidEnterBackground() async {
        inForeground = false
        let wake = wakeDeadline(began: clock.now)
        wakeBegan(wake)
        await beginWake(until: wake.workUntil, syncing: false)
        await endWake(wake, retryingEvents: .afterAnAnswer, retryingRegistration: true)
    }

    /// Whether the SDK believes the app is in the foreground.
    public var isInForeground: Bool { inForeground }

    /// The common start of a wake: permission, pending logouts, due work, sync. A wake is a
    /// new chance for the network (a suspended app saw none of the backoff's timers), so what
    /// is queued goes out now, backoff or not: an acknowledgment held back before the last
    /// suspension gets through here, or the plan stays held. `until`: the reconciliation
    /// waits for the gate no longer than that (it goes on after, and the wake does not wait).
    func beginWake(until deadline: Date? = nil, syncing: Bool = true) async {
        guard readStateIfUnreadable() else { return }
        if !queue.isEmpty {
            retryAt = nil
            flushDueAt = clock.now
        }
        await refreshAuthorization()
        refreshTimeZone()
        startPendingLogouts()
        if let deadline {
            await waitAtMost(until: deadline) { await self.tick() }
        } else {
            await tick()
        }
        if syncing { startSync() }
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

    /// Sends the queued events again at each retry time before `deadline`, while the app is not
    /// on screen (a button chosen on the lock screen: the person's word should reach the server
    /// before iOS suspends the app, not at its next run; `make chaos` had one Done in ten wait
    /// on the phone through a PostgreSQL or RabbitMQ restart without it).
    func retryEvents(until deadline: Date) async {
        while !inForeground, hasSendableEvents, let retry = retryAt, retry < deadline {
            try? await clock.sleep(until: retry)
            guard !stopped, clock.now >= retry else { return }  // shut down, or the sleep was cancelled
            await tick()
            await settle(until: deadline)
            guard retryAt != retry else { return }  // no new attempt was made (one is still in flight)
        }
    }

    /// Waits, until `deadline` at most, for what was started by now: the registration, sync
    /// and logout in flight, then the flush until every event queued by then (the sync's
    /// acknowledgments included) was answered or the flush stopped. The requests go on after
    /// the deadline; their results are used when they arrive.
    ///
    /// Not for what a later wake starts: pushes arriving close together each start a sync and
    /// queue an acknowledgment, and waiting for those tied every wake's answer to the end of
    /// the stream (24 pushes 0.1 s apart: the first answered after 2.8 s, now 0.75 s). iOS
    /// counts the background time an app takes against the pushes it gets; the last wake to
    /// end still holds back what is unconfirmed then.
    func settle(until deadline: Date) async {
        await waitAtMost(until: deadline) { await self.settleStarted() }
    }

    private func settleStarted() async {
        let registration = registrationTask, sync = syncTask, logout = logoutTask
        _ = await registration?.value
        await sync?.value
        await logout?.value
        let queued = queue.events.compactMap(\.id)
        while flight != nil, queued.contains(where: queue.contains(id:)) {
            await nextFlightStep()
        }
    }

    /// Runs `work` and waits for it until `deadline` at most (it goes on after).
    /// Past the deadline, `work` starts and nothing waits for it (waiting for even a timer
    /// costs a turn on a thread, which a wake past its deadline does not have). A wait the
    /// deadline ended tells how late this process comes back to the client after a deadline
    /// (``deadlineLateness``).
    func waitAtMost(until deadline: Date, _ work: @escaping @Sendable () async -> Void) async {
        guard clock.now < deadline else {
            Task { await work() }
            return
        }
        let winner = Locked<Bool?>(nil)  // true: the deadline came first
        let clock = self.clock
        var timer: Task<Void, Never>?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume: @Sendable (Bool) -> Void = { byDeadline in
                let first = winner.withLock { winner -> Bool in
                    guard winner == nil else { return false }
                    winner = byDeadline
                    return true
                }
                if first { continuation.resume() }
            }
            Task { await work(); resume(false) }
            timer = Task { try? await clock.sleep(until: deadline); resume(true) }
        }
        timer?.cancel()
        if winner.withLock({ $0 }) == true {
            let now = clock.now
            deadlineLateness.record(now.timeIntervalSince(deadline), at: now, cap: configuration.backgroundBudget / 2)
        }
    }
}
