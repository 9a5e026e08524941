import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// The body of `GET /v1/subscribers/{id}/plans`, read with BuzzKitWire's parser (a crowded
    /// phone reads a list of 64 plans or more on every wake: through `JSONDecoder` that was a
    /// tenth of the simulated fleet's time).
    private struct PlanList: JSONReadable {
        var plans: [LocalPlan]
        /// Every category the subscriber's live plans use (DESIGN §4c), so a fallback's
        /// buttons show even when its plan never reached the phone.
        var categories: [NotificationCategory]?
        var asOf: String?

        init(json: JSONValue, path: String) throws {
            let fields = try JSONFields(json, path: path)
            plans = try fields.readArray("plans")
            categories = fields.value("categories") == nil ? nil : try fields.readArray("categories")
            asOf = try fields.optionalString("asOf")
        }
    }

    /// Reconciles the phone's plans with the server's list now (``syncPlans()`` without
    /// waiting): schedules and acknowledges what is missing, removes what is no longer live.
    /// Runs at launch, on returning to the foreground, on regaining the network and on every
    /// BuzzKit silent push, because APNs keeps one notification per app for an offline phone
    /// and iOS throttles silent pushes: a lost plan or cancel push is repaired here.
    @discardableResult
    func startSync() -> Task<Void, Never>? {
        guard identity != nil else { return nil }
        if let syncTask { return syncTask }
        let task = Task { () -> Void in
            repeat {
                self.syncAgain = false
                await self.performSync()
            } while self.syncAgain && self.identity != nil
            self.syncTask = nil
        }
        syncTask = task
        return task
    }

    /// How long after the server confirmed the token for a new person plan pushes are left to
    /// the sync, in seconds: pushes dispatched before the token moved arrive within it.
    static let switchSettling: TimeInterval = 300

    /// Makes sure a sync starts after this point: starts one, or has the running one (which
    /// asked before now) go once more.
    func requestSyncAfterNow() {
        if syncTask != nil { syncAgain = true } else { startSync() }
    }

    /// Schedules a plan that came in a push (inside the gate). While the phone switched
    /// subscribers and the server has not confirmed the token for the new one, the push may be
    /// the previous person's: it is refused (``ClientActivity/RejectionReason/deviceNotConfirmed``).
    /// For ``switchSettling`` after the server confirmed it, a plan push is left to the sync the
    /// same wake runs (which lists only the new person's plans): a push of the previous
    /// person's dispatched before the token moved may reach the app after the confirmation (iOS
    /// launched the app for it and the person switched meanwhile), and a wake that must answer
    /// before its sync does would leave it in the center for the wrong person.
    /// After that, a plan that arrives while a sync is under way is checked by one more
    /// sync: the server's list is the new person's, so the previous person's plan goes.
    func scheduleFromPush(_ plan: LocalPlan) async -> PushOutcome {
        if registration.previousSubscriberId != nil, identity != nil {
            refusedBeforeSwitch = true
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .deviceNotConfirmed))
            return .noData
        }
        if let switchedAt = registration.switchedAt, abs(clock.now.timeIntervalSince(switchedAt)) < Self.switchSettling {
            requestSyncAfterNow()
            report(.planRejected(localId: plan.id, messageId: plan.messageId, reason: .deviceNotConfirmed))
            return .noData
        }
        var snapshot: CenterSnapshot?
        let outcome = await schedule(plan, in: &snapshot)
        if outcome == .newData, registration.switchedAt != nil, syncTask != nil { syncAgain = true }
        return outcome
    }

    /// Reconciles with the server's plan list and waits for it (and the acknowledgments it
    /// queued) to finish.
    public func syncPlans() async {
        startSync()
        await settle()
    }

    private func performSync() async {
        guard let subscriberId = identity?.subscriberId else { return }
        let path = "/v1/subscribers/\(Self.encodePathSegment(subscriberId))/plans"
        let context = "GET /v1/subscribers/{id}/plans"
        let requestedAt = clock.now
        var (result, body, _) = await exchange(method: "GET", path: path, body: Data(), context: context)
        if case .unauthorized = result {
            cachedToken = nil
            (result, body, _) = await exchange(method: "GET", path: path, body: Data(), context: context)
        }
        guard case .accepted = result, let body else {
            if case .failed(let error, _, _) = result { report(.error(error)) }
            if case .refused(let error) = result { report(.error(error)) }
            if case .unauthorized(let error) = result { report(.error(error)) }
            return
        }
        let list: PlanList
        do {
            list = try PlanList(jsonData: body)
        } catch {
            report(.error(BuzzKitError(.invalidPayload, context: context, message: "the plan list could not be read: \(error)")))
            return
        }
        let asOf = list.asOf.flatMap(RFC3339.parse)
        await withGate {
            await registerCategories(of: list.plans, list.categories ?? [])
            await applySync(list.plans, requestedAt: requestedAt, asOf: asOf, subscriberId: subscriberId)
        }
        lastSyncAt = clock.now
        await tick()
    }

    /// Applies the server's list (inside the gate).
    ///
    /// - A plan the phone holds that the server does not list is removed, if it arrived before
    ///   the request went out and its moment (its `fireAt` in the zone the phone was in when it
    ///   arrived) is after the list's `asOf`: the server lists every live plan of this
    ///   subscriber whose moment is after `asOf`, so its run was cancelled, or it is someone
    ///   else's (a push for the person who signed out, still on its way when the next one
    ///   signed in). Both instants are the server's, so the phone's clock does not matter. A
    ///   cancel tombstone keeps a late push of it out.
    /// - A listed plan the phone does not hold is scheduled and acknowledged exactly as if
    ///   its push had arrived (same id, so a push and a sync never show it twice), unless it
    ///   was cancelled here or is due within ``Configuration/acknowledgmentDeadline``.
    /// - A listed plan that an event tracked since the request went out cancels (its name is in
    ///   the plan's `cancelOn`) is not scheduled: the list was taken before that event, so the
    ///   plan's run was triggered before it, and the event found nothing to cancel on the phone
    ///   only because the plan had not arrived yet. It is remembered as cancelled.
    func applySync(_ plans: [LocalPlan], requestedAt: Date, asOf: Date?, subscriberId: String) async {
        guard identity?.subscriberId == subscriberId else { return }
        await reconcile()
        let listed = Set(plans.map(\.id))
        let zone = clock.timeZone
        var removed: [String] = []
        for record in book.records.values.sorted(by: { $0.localId < $1.localId })
        where !listed.contains(record.localId) && record.receivedAt < requestedAt {
            let moment = record.plan.fireAt.instant(in: record.receivedZone ?? zone)
            guard moment > asOf.map({ $0.addingTimeInterval(0.25) }) ?? requestedAt.addingTimeInterval(2) else { continue }
            if record.state == .scheduled { await center.removePendingRequests(withIdentifiers: [record.localId]) }
            if let ackId = record.acknowledgmentEventId, !inFlightEventIds.contains(ackId), queue.contains(id: ackId) {
                queue.remove(ids: [ackId])
                saveQueue()
            }
            book.remove(localId: record.localId)
            book.addTombstone(CancelTombstone(id: record.localId, matchesPrefix: false, recordedAt: clock.now))
            removed.append(record.localId)
        }
        if !removed.isEmpty { saveBook() }
        var added: [String] = []
        // Too close to its moment to be acknowledged safely (the acknowledgment deadline): the
        // server's fallback covers it.
        let earliest = clock.now.addingTimeInterval(configuration.acknowledgmentDeadline ?? 0)
        let trackedSince = Set(recentlyTracked.filter { $0.at >= requestedAt }.map(\.name))
        var cancelledMeanwhile: [String] = []
        // The categories were registered before; the center is read once for every plan.
        var snapshot: CenterSnapshot?
        for plan in plans where plan.fireAt.instant(in: zone) > earliest {
            if book.tombstone(for: plan.id) != nil { continue }
            if book.records[plan.id] == nil, plan.cancelOn.contains(where: trackedSince.contains) {
                book.addTombstone(CancelTombstone(id: plan.id, matchesPrefix: false, recordedAt: clock.now))
                cancelledMeanwhile.append(plan.id)
                continue
            }
            if let existing = book.records[plan.id], existing.plan == plan { continue }
            if snapshot == nil {
                snapshot = CenterSnapshot(authorization: await center.authorizationStatus(), pending: await center.pendingRequests())
            }
            if await schedule(plan, in: &snapshot) == .newData { added.append(plan.id) }
        }
        if !cancelledMeanwhile.isEmpty { saveBook() }
        if !added.isEmpty || !removed.isEmpty {
            report(.plansSynced(added: added, removed: removed))
        }
    }

    /// Remembers a tracked event for syncs under way (inside the gate); keeps the last ten
    /// minutes, at most 100 events: a sync request outlives neither.
    func rememberTracked(_ name: String) {
        let now = clock.now
        recentlyTracked.removeAll { now.timeIntervalSince($0.at) > 600 }
        if recentlyTracked.count >= 100 { recentlyTracked.removeFirst(recentlyTracked.count - 99) }
        recentlyTracked.append((name, now))
    }
}
