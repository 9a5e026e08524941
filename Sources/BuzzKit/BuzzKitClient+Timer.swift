import Foundation

extension BuzzKitClient {
    /// Runs whatever is due, then waits for the flush and registration it started.
    func pump() async {
        await tick()
        await settle()
    }

    /// The SDK's heartbeat: reconciles with the center, handles acknowledgment deadlines,
    /// starts a due flush or registration, and sets the timer for the next due moment.
    /// Called at every entry point, when the timer fires and after every flush.
    func tick() async {
        activeTicks += 1
        defer { activeTicks -= 1 }
        await reconcileInGate()
        let now = clock.now
        if shouldFlush(now: now) { startFlight() }
        if shouldRegister(now: now) { startRegistration() }
        scheduleTimer()
    }

    /// Applies deferred pushes, reconciles with the center and handles acknowledgment
    /// deadlines, inside the gate. A caller arriving while such a pass waits for the gate joins
    /// it instead of queueing another (the pass starts after the caller arrived, so it sees
    /// everything the caller would): a burst of pushes to a crowded phone would otherwise
    /// queue one pass per push, and each wake would wait for all of them.
    private func reconcileInGate() async {
        if let queuedTick {
            await queuedTick.value
            return
        }
        let pass = Task {
            await self.withGate {
                self.queuedTick = nil
                self.lastPassAt = self.clock.now
                await self.applyDeferredPushes()
                await self.reconcile()
                await self.processAcknowledgmentDeadlines()
                await self.processLastCalls()
                // Suspended meanwhile: an acknowledgment in flight at the hold was refused since.
                if self.suspending { await self.holdUnconfirmedPlans() }
            }
        }
        queuedTick = pass
        await pass.value
    }

    /// Sets one timer for the earliest of: the queue's due time (not before the backoff),
    /// the next acknowledgment deadline, the registration retry.
    func scheduleTimer() {
        guard !stopped else { return }
        let now = clock.now
        var candidates: [Date] = []
        if flight == nil, !suspending, hasSendableEvents, let due = flushDueAt {  // suspended: due at the next wake
            candidates.append(max(due, retryAt ?? due))
        }
        // Deadlines and last calls after the latest pass: one that came between the pass and
        // now (the clock moved on meanwhile) is due at once, not skipped.
        let handledUntil = min(lastPassAt ?? now, now)
        let zone = clock.timeZone
        if let margin = configuration.acknowledgmentDeadline {
            for record in book.records.values where !record.acknowledgmentConfirmed {
                let deadline = record.fireInstant(in: zone).addingTimeInterval(-margin)
                if deadline > handledUntil { candidates.append(deadline) }
            }
        }
        for record in book.records.values {
            if let call = lastCallInstant(of: record, zone: zone), call > handledUntil { candidates.append(call) }
        }
        if registrationTask == nil, !registrationRefused, registrationDue, let at = registrationRetryAt {
            candidates.append(at)
        }
        guard let next = candidates.min() else {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            return
        }
        if timer != nil, timerDeadline == next { return }
        timer?.cancel()
        timerDeadline = next
        let clock = self.clock
        timer = Task { [weak self] in
            do {
                try await clock.sleep(until: next)
            } catch {
                return
            }
            await self?.timerFired(at: next)
        }
    }

    /// The timer went off: forget it and tick (a replaced timer's late wake-up is ignored).
    /// A timer does not end a suspension: one that fires in the moment between the hold and
    /// iOS suspending the app would send the held plans' acknowledgments into a request the
    /// suspension cuts off (the server may count them while the plans are out of the center).
    func timerFired(at deadline: Date) async {
        guard timerDeadline == deadline else { return }
        timer = nil
        timerDeadline = nil
        await tick()
    }

    /// The deadline of the pending timer, if any (for this package's tests and simulator).
    package var nextWakeUp: Date? { timerDeadline }

    /// Whether nothing is running or due: no tick, flush or registration in progress, and the
    /// timer (if any) is set for later than the clock's now. After moving a manual clock,
    /// wait for this before looking at the results (this package's tests).
    package var isIdle: Bool {
        activeTicks == 0 && flight == nil && registrationTask == nil && syncTask == nil && logoutTask == nil
            && (timerDeadline.map { $0 > clock.now } ?? true)
    }
}
