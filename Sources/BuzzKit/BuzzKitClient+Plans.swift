import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Schedules a plan (inside the gate). The rules, in order:
    /// 1. A plan cancelled on this device before it arrived is refused.
    /// 2. The same plan again (same id and content) while known is a no-op: one request, one
    ///    acknowledgment. A different plan under a known id replaces it.
    /// 3. A `fireAt` that has passed in the device's zone is refused.
    /// 4. Nobody signed in, or notification permission denied: refused (not acknowledged, so
    ///    the server's fallback reaches the subscriber's other devices).
    /// 5. Under the pending limit the soonest plans win; a refused plan is not acknowledged.
    /// 6. Otherwise: the request is added, `cancelOn` registered, `$local.scheduled` queued
    ///    for an immediate flush; but after the hold for a suspension, before the next wake
    ///    (a deferred push or a sync's answer applied while the app is being suspended), the
    ///    plan is held instead of added (``PlanRecord/State/held``): nothing may run later
    ///    to withdraw it before the server's fallback.
    ///
    /// `snapshot`: a caller scheduling many plans (a sync) reconciles with the center once,
    /// registers their categories once and reads the center once (``CenterSnapshot``), which
    /// this keeps up to date; `nil`: each of these happens here, for this plan.
    func schedule(_ plan: LocalPlan, in snapshot: inout CenterSnapshot?) async -> PushOutcome {
        if snapshot == nil { await reconcile() }
        let now = clock.now
        let zone = clock.timeZone
        if book.tombstone(for: plan.id) != nil {
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .alreadyCancelled))
            return .noData
        }
        if let existing = book.records[plan.id] {
            if existing.plan == plan {
                report(.planDuplicate(localId: plan.id, messageId: plan.messageId))
                return .noData
            }
            await center.removePendingRequests(withIdentifiers: [plan.id])
            snapshot?.removed([plan.id])
            book.remove(localId: plan.id)
            saveBook()
        }
        guard identity != nil else {
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .signedOut))
            return .noData
        }
        let authorization: NotificationAuthorization
        if let snapshot { authorization = snapshot.authorization } else { authorization = await center.authorizationStatus() }
        guard authorization.canShow else {
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .notAuthorized))
            return .noData
        }
        let instant = plan.fireAt.instant(in: zone)
        guard instant > now else {
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .pastFireTime))
            return .noData
        }
        // Too late to be sure the server counts its acknowledgment before the moment (as sync
        // does): left to the fallback, which shows it once.
        if let margin = configuration.acknowledgmentDeadline, instant.addingTimeInterval(-margin) <= now {
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .insideAcknowledgmentDeadline))
            return .noData
        }
        if suspending { return scheduleOutsideCenter(plan, as: .held, at: now, in: zone) }
        // Due so soon that its acknowledgment may still be on its way at the last call, which a
        // busy app may not get to in time: it waits outside the center for the server's answer.
        if configuration.acknowledgmentDeadline != nil, instant.timeIntervalSince(now) < confirmFirstWindowNow {
            return scheduleOutsideCenter(plan, as: .awaitingAnswer, at: now, in: zone)
        }
        let current: [NotificationRequest]
        if let snapshot { current = snapshot.pending } else { current = await center.pendingRequests() }
        let pending = current.filter { $0.id != plan.id }
        let releasable = canReleaseInTime(now: now)
        let entries = pending.map {
            CapacityPlanner.Entry(id: $0.id, instant: $0.fireInstant(in: zone),
                                  ownedByBuzzKit: book.records[$0.id] != nil || $0.message?.localId == $0.id,
                                  pinned: !releasable && (book.records[$0.id].map(mayBeCountedOn) ?? false))
        }
        switch CapacityPlanner(limit: configuration.pendingNotificationLimit).decide(instant: instant, pending: entries) {
        case .reject:
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .noCapacity))
            return .noData
        case .accept(let evicting):
            for id in evicting {
                await evict(id)
                snapshot?.removed([id])
            }
        }
        if snapshot == nil { await registerCategories(of: [plan]) }
        let request = NotificationRequest(plan: plan)
        do {
            try await center.add(request)
            snapshot?.added(request)
        } catch {
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .notificationCenterFailed))
            report(.error(BuzzKitError(.notificationCenter, context: "plan \(plan.id)", message: "\(error)")))
            return .failed
        }
        if suspending {  // the hold for a suspension came while the request was being added
            await center.removePendingRequests(withIdentifiers: [plan.id])
            snapshot?.removed([plan.id])
            return scheduleOutsideCenter(plan, as: .held, at: now, in: zone)
        }
        guard let acknowledgment = makeAcknowledgment(plan) else {
            await center.removePendingRequests(withIdentifiers: [plan.id])
            snapshot?.removed([plan.id])
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .signedOut))
            return .noData
        }
        book.insert(PlanRecord(plan: plan, acknowledgmentEventId: acknowledgment.id ?? "", receivedAt: now, receivedZone: zone))
        saveBook()
        enqueue(acknowledgment, urgent: true)
        report(.planScheduled(localId: plan.id, messageId: plan.messageId, fireInstant: instant))
        return .newData
    }

    /// Keeps a plan out of the notification center and queues its acknowledgment: `held` (it
    /// arrived after the hold for a suspension; once the acknowledgment is confirmed, a later
    /// reconciliation puts it in the center) or `awaitingAnswer` (due within
    /// ``confirmFirstWindowNow``; the server's answer to its acknowledgment shows it or not).
    private func scheduleOutsideCenter(_ plan: LocalPlan, as state: PlanRecord.State, at now: Date, in zone: TimeZone) -> PushOutcome {
        guard let acknowledgment = makeAcknowledgment(plan) else {
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .signedOut))
            return .noData
        }
        var record = PlanRecord(plan: plan, acknowledgmentEventId: acknowledgment.id ?? "", receivedAt: now, receivedZone: zone)
        record.state = state
        book.insert(record)
        saveBook()
        enqueue(acknowledgment, urgent: true)
        report(state == .held ? .plansHeld(localIds: [plan.id]) : .planAwaitingAnswer(localId: plan.id, messageId: plan.messageId))
        return .newData
    }

    /// Whether the server may hold this plan's acknowledgment (confirmed, in flight, or sent
    /// with an ambiguous failure): taking it out of the center then needs a release.
    func mayBeCountedOn(_ record: PlanRecord) -> Bool {
        record.acknowledgmentConfirmed || record.acknowledgmentUncertain
            || (record.acknowledgmentEventId.map(inFlightEventIds.contains) ?? false)
    }

    /// Whether a release queued now can still reach the server before the app is suspended:
    /// on screen, or with at least a quarter of the budget (at most 5 s) of the running wakes'
    /// work left. A crowded phone's sync applied in a wake's last second evicted a plan the
    /// server counted on; its release never got out, and the plan was never shown.
    func canReleaseInTime(now: Date) -> Bool {
        if inForeground { return true }
        guard activeWakes > 0, let workUntil = wakesWorkUntil else { return false }
        return now < workUntil.addingTimeInterval(-min(5, configuration.backgroundBudget / 4))
    }

    /// Pushes a BuzzKit request out of the center to make room for a sooner plan.
    ///
    /// If the server may already hold its acknowledgment (confirmed, in flight, or sent with
    /// an ambiguous failure), the plan is parked and released (`$local.released`): the
    /// server's fallback covers it unless a slot frees up and it is put back and acknowledged
    /// again. Otherwise its acknowledgment is taken back out of the queue and the plan
    /// forgotten, so the server's fallback covers it.
    func evict(_ localId: String) async {
        await center.removePendingRequests(withIdentifiers: [localId])
        guard let record = book.records[localId] else { return }
        if mayBeCountedOn(record) {
            book.update(localId) { $0.state = .parked }
            release(localId)
            report(.planEvicted(localId: localId, messageId: record.plan.messageId, parked: true))
        } else {
            if let ackId = record.acknowledgmentEventId {
                queue.remove(ids: [ackId])
                saveQueue()
            }
            book.remove(localId: localId)
            report(.planEvicted(localId: localId, messageId: record.plan.messageId, parked: false))
        }
        saveBook()
    }
}
