import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Brings the plan book in line with the notification center (inside the gate). Runs at
    /// every entry point, which is when an iOS app gets to run code.
    ///
    /// - A scheduled plan no longer pending has fired (or was removed by someone else: a
    ///   documented loss if it was acknowledged and not yet due). It is forgotten.
    /// - A parked plan whose time has come without a slot is lost (a documented miss).
    /// - Held plans whose acknowledgment got through are parked.
    /// - Parked plans fill free slots, soonest first.
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
            book.remove(localId: record.localId)
            changed = true
            if record.fireInstant(in: zone) > now, record.acknowledgmentConfirmed {
                report(.planLost(localId: record.localId, messageId: record.plan.messageId, reason: .removedOutsideSDK))
            }
        }
        var free = configuration.pendingNotificationLimit - pending.count
        for record in book.records(in: .parked, zone: zone) {
            if record.fireInstant(in: zone) <= now {
                changed = true
                if record.acknowledgmentConfirmed {
                    book.remove(localId: record.localId)
                    report(.planLost(localId: record.localId, messageId: record.plan.messageId,
                                     reason: .evictedAfterAcknowledgment))
                } else {
                    await withdraw(record)
                }
            } else if free > 0 {
                do {
                    try await center.add(NotificationRequest(plan: record.plan))
                    book.update(record.localId) { $0.state = .scheduled }
                    free -= 1
                    changed = true
                    report(.planRestored(localId: record.localId, messageId: record.plan.messageId))
                } catch {
                    report(.error(BuzzKitError(.notificationCenter, context: "restore \(record.localId)", message: "\(error)")))
                }
            }
        }
        if changed { saveBook() }
    }

    /// Withdraws plans whose acknowledgment is unconfirmed at their deadline (inside the
    /// gate). Each such acknowledgment first gets one last send, even during backoff (at most
    /// one per plan, so no storm); if that fails too, the plan is withdrawn.
    func processAcknowledgmentDeadlines() async {
        guard let margin = configuration.acknowledgmentDeadline, flight == nil else { return }
        let now = clock.now
        let zone = clock.timeZone
        let overdue = book.records.values
            .filter { !$0.acknowledgmentConfirmed && $0.fireInstant(in: zone).addingTimeInterval(-margin) <= now }
            .sorted { $0.localId < $1.localId }
        for record in overdue {
            guard let current = book.records[record.localId], !current.acknowledgmentConfirmed else { continue }
            if let ackId = current.acknowledgmentEventId {
                if inFlightEventIds.contains(ackId) { continue }
                if queue.contains(id: ackId), !finalAttempts.contains(current.localId) {
                    finalAttempts.insert(current.localId)
                    forceNextFlush = true
                    continue
                }
            }
            await withdraw(current)
        }
    }
}
