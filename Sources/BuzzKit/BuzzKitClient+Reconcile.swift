import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Brings the plan book in line with the notification center (inside the gate). Runs at
    /// every entry point, which is when an iOS app gets to run code.
    ///
    /// - A scheduled plan no longer pending has fired, or, if it was not due yet, was removed
    ///   by someone else (the app, the person, the system): it is released and forgotten.
    /// - Held plans whose acknowledgment got through are parked.
    /// - Held and parked plans fill free slots, soonest first (parked ones are acknowledged
    ///   again, held ones' acknowledgments go out now); the ones left without a slot are
    ///   released, so the server's fallback covers them.
    /// - A parked plan whose time has come was released: the fallback showed it.
    func reconcile() async {
        let now = clock.now
        let zone = clock.timeZone
        let pending = await center.pendingRequests()
        let pendingIds = Set(pending.map(\.id))
        var changed = false
        for record in book.records(in: .held, zone: zone) where record.acknowledgmentConfirmed {
            book.update(record.localId) { $0.state = .parked }
            changed = true
        }
        for record in book.records(in: .scheduled, zone: zone) where !pendingIds.contains(record.localId) {
            if record.fireInstant(in: zone) > now { release(record.localId) }
            book.remove(localId: record.localId)
            changed = true
        }
        var free = configuration.pendingNotificationLimit - pending.count
        // A plan put back is acknowledged again; one due within the acknowledgment deadline
        // stays released (its acknowledgment might not be counted in time; the fallback shows it).
        let restorable = now.addingTimeInterval(configuration.acknowledgmentDeadline ?? 0)
        // Held and parked plans share the free slots, soonest first (a later held plan must not
        // take the slot of a sooner parked one).
        let waiting = (book.records(in: .parked, zone: zone) + book.records(in: .held, zone: zone))
            .sorted { ($0.fireInstant(in: zone), $0.localId) < ($1.fireInstant(in: zone), $1.localId) }
        for record in waiting {
            if record.state == .held {
                if await putBack(held: record, free: &free, restorable: restorable, zone: zone) { changed = true }
                continue
            }
            if record.fireInstant(in: zone) <= now {
                changed = true
                if !record.acknowledgmentConfirmed {
                    await withdraw(record)
                    continue
                }
                book.remove(localId: record.localId)
                if record.releasedAt == nil {
                    report(.planLost(localId: record.localId, messageId: record.plan.messageId, reason: .evictedAfterAcknowledgment))
                }
            } else if suspending {
                continue  // put back at the next wake, when the app runs to withdraw it if need be
            } else if free > 0, record.fireInstant(in: zone) > restorable || record.releasedAt == nil, await restore(record) {
                free -= 1
                changed = true
            } else if suspending {
                continue  // the hold for a suspension came while it was being put back
            } else if record.releasedAt == nil {
                release(record.localId)
                changed = true
            }
        }
        if changed { saveBook() }
    }

    /// A held plan (its acknowledgment never got through) goes back into the center as soon as
    /// the app runs, before its acknowledgment is sent: an acknowledgment that then reaches the
    /// server while iOS suspends the app (its answer in flight) is for a plan the phone shows.
    /// Sending it for a plan still held, to be put back once confirmed, left the plan out of
    /// the center for good when the confirmation came after the suspension (issue 45, race 1).
    /// Without a free slot its acknowledgment is taken back (released if it may have arrived),
    /// so the fallback covers it; one due within the acknowledgment deadline is left to the
    /// deadline's withdrawal. Returns whether the book changed.
    private func putBack(held record: PlanRecord, free: inout Int, restorable: Date, zone: TimeZone) async -> Bool {
        guard !suspending, record.fireInstant(in: zone) > restorable else { return false }
        // Due sooner than this phone's answers take: put back outside the center, its
        // acknowledgment's answer decides (as for a plan arriving that close to its moment).
        if configuration.acknowledgmentDeadline != nil, record.fireInstant(in: zone).timeIntervalSince(clock.now) < confirmFirstWindowNow {
            return restoreAwaitingAnswer(record)
        }
        if free > 0, await restore(record) {
            free -= 1
            return true
        }
        guard !suspending, record.acknowledgmentEventId != nil, record.releasedAt == nil else { return false }
        release(record.localId)
        return true
    }

    /// Withdraws plans whose acknowledgment is unconfirmed at their deadline (inside the
    /// gate). A pending plan whose deadline is just now (the app was running: its timer
    /// fired) first gets one last send of its acknowledgment, even during backoff (at most one
    /// per plan, so no storm); if that fails too, the plan is withdrawn. A plan whose deadline
    /// passed while the app was suspended, or that was held, is withdrawn at once, before
    /// anything is sent: its acknowledgment must not reach the server that late; unless its
    /// acknowledgment may have arrived already, which gets the last send instead.
    func processAcknowledgmentDeadlines() async {
        guard let margin = configuration.acknowledgmentDeadline, flight == nil else { return }
        let now = clock.now
        let zone = clock.timeZone
        let overdue = book.records.values
            .filter { !$0.acknowledgmentConfirmed && $0.fireInstant(in: zone).addingTimeInterval(-margin) <= now }
            .sorted { $0.localId < $1.localId }
        for record in overdue {
            // Taken out at its last call: its answer decides (``processLastCalls()``).
            guard let current = book.records[record.localId], !current.acknowledgmentConfirmed, current.state != .awaitingAnswer else { continue }
            if let ackId = current.acknowledgmentEventId {
                if inFlightEventIds.contains(ackId) { continue }
                let deadline = current.fireInstant(in: zone).addingTimeInterval(-margin)
                // Due since its deadline, or since it arrived when that was later.
                let due = max(deadline, current.receivedAt)
                // An acknowledgment that may have arrived (its request was cut off, as by a
                // suspension) is most likely counted by the server: withdrawing the plan now
                // would leave its showing to a release racing the moment. It is sent again
                // (deduplicated) while the moment is ahead, and withdrawn only if that fails.
                let mayHaveArrived = current.acknowledgmentUncertain && current.fireInstant(in: zone) > now
                if current.state == .scheduled, now.timeIntervalSince(due) <= Self.lastSendWindow || mayHaveArrived,
                   queue.contains(id: ackId), !finalAttempts.contains(current.localId) {
                    finalAttempts.insert(current.localId)
                    forceNextFlush = true
                    continue
                }
                // Its moment has come while it is still pending (iOS shows it any instant now),
                // and the server may count it: taking it out now could only leave it unshown.
                if current.state == .scheduled, current.acknowledgmentUncertain, current.fireInstant(in: zone) <= now { continue }
            }
            await withdraw(current)
        }
        // The last sends go now, not at the end of the tick: a pass queued behind this one runs
        // first, finds no flight, and would withdraw the plans whose last send was decided but
        // not made (a crowded phone opened 2 s before its moments: 8 plans withdrawn 10 ms after
        // their last send was decided; 4 of them, already counted, were never shown).
        if forceNextFlush, shouldFlush(now: clock.now) { startFlight() }
    }

    /// How late after its deadline a plan still gets the last send of its acknowledgment
    /// (the timer at the deadline fires within this; a later wake is past it).
    static let lastSendWindow: TimeInterval = 1
}
