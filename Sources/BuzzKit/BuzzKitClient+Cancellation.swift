import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// `bk.cancel` (inside the gate): removes BuzzKit's pending requests and parked plans whose
    /// id equals `cancelId` or starts with it, and remembers the cancel so a plan push arriving
    /// late is not scheduled.
    ///
    /// The match is the contract's plain string prefix (``CancelPayload/matches(localId:)``):
    /// `run1` removes `run1/nudge` and also `run10/nudge`. Run ids are UUIDs, so this cannot
    /// happen between real runs.
    func applyCancelPush(_ cancelId: String) async -> PushOutcome {
        let cancel = CancelPayload(id: cancelId)
        let pending = await center.pendingRequests()
        let pendingMatches = pending
            .filter { (book.records[$0.id] != nil || $0.message != nil) && cancel.matches(localId: $0.id) }
            .map(\.id)
        let parkedMatches = book.records.values
            .filter { $0.state != .scheduled && cancel.matches(localId: $0.localId) }
            .map(\.localId)
        if !pendingMatches.isEmpty {
            await center.removePendingRequests(withIdentifiers: pendingMatches)
        }
        let removed = Set(pendingMatches + parkedMatches).sorted()
        for id in removed { book.remove(localId: id) }
        book.addTombstone(CancelTombstone(id: cancelId, matchesPrefix: true, recordedAt: clock.now))
        saveBook()
        guard !removed.isEmpty else { return .noData }
        report(.notificationsCancelled(localIds: removed, trigger: .cancelPush(cancelId)))
        return .newData
    }

    /// A tracked event (inside the gate): removes the pending requests and parked plans
    /// registered under `eventName`, without any network. Returns the removed local ids.
    func cancelRegistered(eventName: String) async -> [String] {
        let ids = book.registry.localIds(for: eventName)
        guard !ids.isEmpty else { return [] }
        await center.removePendingRequests(withIdentifiers: ids)
        let now = clock.now
        for id in ids {
            book.remove(localId: id)
            book.addTombstone(CancelTombstone(id: id, matchesPrefix: false, recordedAt: now))
        }
        saveBook()
        report(.notificationsCancelled(localIds: ids, trigger: .event(eventName)))
        return ids
    }

    /// A fallback alert reached the app (inside the gate): the server did not see an
    /// acknowledgment in time, so the local copy would be a second notification. Removes it.
    func applyFallbackArrival(_ message: NotificationMessage) async -> PushOutcome {
        guard let localId = message.localId else { return .noData }
        let isPending = await center.pendingRequests().contains { $0.id == localId }
        if isPending { await center.removePendingRequests(withIdentifiers: [localId]) }
        let record = book.remove(localId: localId)
        book.addTombstone(CancelTombstone(id: localId, matchesPrefix: false, recordedAt: clock.now))
        saveBook()
        guard isPending || (record.map { $0.state != .scheduled } ?? false) else { return .noData }
        report(.notificationsCancelled(localIds: [localId], trigger: .fallbackArrived(localId)))
        return .newData
    }

    /// Removes a plan whose acknowledgment the server has not confirmed by its deadline
    /// (inside the gate), and takes the acknowledgment back out of the queue: the server will
    /// send its fallback, so showing the local copy too would show it twice.
    func withdraw(_ record: PlanRecord) async {
        // The acknowledgment is settled before the first await: a flight that starts while the
        // request is being removed (a tick that joined an earlier pass) would otherwise send it
        // for a plan no longer on the phone, and the server, counting it, would send no fallback
        // (issue 45, race 2: a crowded reminder never shown in the fleet all at once). One
        // already in flight, or sent with an ambiguous failure, may be counted: released.
        let inFlight = record.acknowledgmentEventId.map(inFlightEventIds.contains) ?? false
        let mayHaveArrived = record.acknowledgmentUncertain || inFlight
        if mayHaveArrived {
            release(record.localId)
        } else if let ackId = record.acknowledgmentEventId, queue.contains(id: ackId) {
            queue.remove(ids: [ackId])
            saveQueue()
        }
        if record.state == .scheduled {
            await center.removePendingRequests(withIdentifiers: [record.localId])
        }
        book.remove(localId: record.localId)
        saveBook()
        finalAttempts.remove(record.localId)
        report(.planWithdrawn(localId: record.localId, messageId: record.plan.messageId, acknowledgmentMayHaveArrived: mayHaveArrived))
    }
}
