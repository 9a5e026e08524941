import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// The device property of acknowledgments and releases: this phone's push token (empty
    /// before iOS handed one over).
    var deviceProperty: JSONValue { .string(registration.desired?.token ?? "") }

    /// A new `$local.scheduled` for `plan`, carrying this device (nil when signed out).
    func makeAcknowledgment(_ plan: LocalPlan) -> BuzzEvent? {
        makeEvent(BuzzEvent.localScheduled,
                  properties: ["localId": .string(plan.id), "messageId": .string(plan.messageId), "device": deviceProperty])
    }

    /// Lets go of a plan this phone no longer holds in the notification center (inside the
    /// gate), so the server does not count on it (docs/contract.md §4b "Released plans"):
    /// - if its acknowledgment may have reached the server (confirmed, in flight, or sent with
    ///   an ambiguous failure), `$local.released` is queued and flushed at once;
    /// - if it is still queued unsent, it is taken back out instead: the server never hears of
    ///   either.
    /// The record stays (parked or held), so the plan can be put back and acknowledged again.
    func release(_ localId: String) {
        guard let record = book.records[localId], record.releasedAt == nil else { return }
        if let ackId = record.acknowledgmentEventId, !record.acknowledgmentConfirmed, !record.acknowledgmentUncertain,
           !inFlightEventIds.contains(ackId), queue.contains(id: ackId) {
            queue.remove(ids: [ackId])
            saveQueue()
            book.update(localId) { $0.acknowledgmentEventId = nil }
        } else if record.acknowledgmentEventId != nil {
            guard let event = makeEvent(BuzzEvent.localReleased, properties: [
                "localId": .string(localId), "messageId": .string(record.plan.messageId), "device": deviceProperty,
            ]) else { return }
            enqueue(event, urgent: true)
            book.update(localId) { $0.releasedAt = clock.now }
            report(.planReleased(localId: localId, messageId: record.plan.messageId))
        }
        saveBook()
    }

    /// Puts a held plan back outside the notification center, awaiting the server's answer
    /// to its acknowledgment (sent now): counted, it is shown (``applyAnswers``); late, it is
    /// forgotten and the fallback is the one shown.
    func restoreAwaitingAnswer(_ record: PlanRecord) -> Bool {
        guard putBack(record, as: .awaitingAnswer) else { return false }  // signed out meanwhile
        report(.planAwaitingAnswer(localId: record.localId, messageId: record.plan.messageId))
        return true
    }

    /// Puts a parked plan back into the notification center (inside the gate) and
    /// acknowledges it again: the server counts on this phone once more.
    func restore(_ record: PlanRecord) async -> Bool {
        do {
            try await center.add(NotificationRequest(plan: record.plan))
        } catch {
            report(.error(BuzzKitError(.notificationCenter, context: "restore \(record.localId)", message: "\(error)")))
            return false
        }
        if suspending {  // the hold for a suspension came while it was being put back: stays parked
            await center.removePendingRequests(withIdentifiers: [record.localId])
            return false
        }
        putBack(record, as: .scheduled)  // signed out meanwhile: no acknowledgment, as before
        report(.planRestored(localId: record.localId, messageId: record.plan.messageId))
        return true
    }

    /// Marks a parked or held plan `state` again and, if the server no longer counts on it
    /// (released, or never acknowledged), queues a fresh acknowledgment for it. When one is
    /// needed and none can be made (nobody signed in): a plan `.scheduled` is marked all the
    /// same; one `.awaitingAnswer` would wait for an answer that never comes, so nothing
    /// changes and this returns false.
    @discardableResult
    private func putBack(_ record: PlanRecord, as state: PlanRecord.State) -> Bool {
        let needsAcknowledgment = record.releasedAt != nil || record.acknowledgmentEventId == nil
        let acknowledgment = needsAcknowledgment ? makeAcknowledgment(record.plan) : nil
        if needsAcknowledgment, acknowledgment == nil, state == .awaitingAnswer { return false }
        book.update(record.localId) { stored in
            stored.state = state
            if let acknowledgment {
                stored.acknowledgmentEventId = acknowledgment.id
                stored.acknowledgmentConfirmed = false
                stored.acknowledgmentUncertain = false
                stored.releasedAt = nil
            }
        }
        if let acknowledgment { enqueue(acknowledgment, urgent: true) }
        return true
    }
}
