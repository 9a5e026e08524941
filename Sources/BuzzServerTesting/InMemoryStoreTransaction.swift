import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation

/// ``StoreTransaction`` over ``InMemoryStore``'s state (the store's lock is held).
struct InMemoryStoreTransaction: StoreTransaction {
    let store: InMemoryStore

    func read<T>(_ body: (InMemoryStore.State) throws -> T) rethrows -> T { try body(store.state) }
    func write<T>(_ body: (inout InMemoryStore.State) throws -> T) rethrows -> T { try body(&store.state) }

    func tenant(_ id: String) throws -> TenantRecord? { read { $0.tenants[id] } }

    func subscriber(tenantId: String, id: String) throws -> SubscriberRecord? {
        read { $0.subscribers[InMemoryStore.key(tenantId, id)] }
    }

    func subscribers(tenantId: String, ids: [String]) throws -> [SubscriberRecord] {
        read { state in ids.compactMap { state.subscribers[InMemoryStore.key(tenantId, $0)] } }
    }

    func activeDevices(tenantId: String, subscriberId: String) throws -> [DeviceRecord] {
        read { state in
            state.deviceOrder.compactMap { state.devices[$0] }.filter { $0.tenantId == tenantId && $0.subscriberId == subscriberId && $0.active }
        }
    }

    func activeDevices(tenantId: String, subscriberIds: [String]) throws -> [String: [DeviceRecord]] {
        var out: [String: [DeviceRecord]] = [:]
        for id in Set(subscriberIds) { out[id] = try activeDevices(tenantId: tenantId, subscriberId: id) }
        return out
    }

    func deactivateDevice(_ id: UUID, reason: String, at: Date, deadSince: Date?) throws {
        write { state in
            guard state.devices[id]?.active == true else { return }
            if let deadSince, let registered = state.registeredAt[id], registered > deadSince { return }  // registered again since
            state.devices[id]?.active = false
            state.deactivated[id] = (reason, at)
        }
    }

    func workflows(tenantId: String, triggeredBy event: String) throws -> [WorkflowRecord] {
        read { state in
            state.workflows.filter { $0.value.tenantId == tenantId && $0.value.definition.triggerEvent == event && state.retiredWorkflows[$0.key] == nil }
                .map(\.value).sorted { $0.key < $1.key }
        }
    }

    func cancelEventNames(tenantId: String) throws -> Set<String> {
        read { $0.cancelEvents[tenantId] ?? [] }
    }

    func currentWorkflow(tenantId: String, key: String) throws -> WorkflowRecord? {
        read { state in
            let id = InMemoryStore.key(tenantId, key)
            return state.retiredWorkflows[id] == nil ? state.workflows[id] : nil
        }
    }

    func insertRun(_ run: RunRecord) throws {
        try write { state in
            guard state.runs[run.id] == nil else { throw ServerError(.conflict, "run \(run.id) exists") }
            state.runs[run.id] = run
            // Microseconds, as PostgreSQL keeps them; runs created in the same one are ordered by id.
            state.runCreatedMicros[run.id] = Int64((store.clock.now.timeIntervalSince1970 * 1_000_000).rounded())
        }
    }

    func insertRuns(_ runs: [RunRecord]) throws { try runs.forEach(insertRun) }

    func openRuns(tenantId: String, subscriberId: String) throws -> [UUID] {
        read { state in
            state.runs.values.filter { $0.tenantId == tenantId && $0.subscriberId == subscriberId && !$0.state.status.isFinal }.map(\.id).sortedByBytes()
        }
    }

    func eraseSubscriber(tenantId: String, subscriberId: String, at: Date) throws {
        write { state in
            let runs = Set(state.runs.values.filter { $0.tenantId == tenantId && $0.subscriberId == subscriberId }.map(\.id))
            state.opens.removeAll { open in
                open.tenantId == tenantId && state.deliveries.values.contains { delivery in
                    delivery.messageId == open.messageId && delivery.runId.map(runs.contains) == true
                }
            }
            state.actions.removeAll { action in
                action.tenantId == tenantId && state.deliveries.values.contains { delivery in
                    delivery.messageId == action.messageId && delivery.runId.map(runs.contains) == true
                }
            }
            state.deliveries = state.deliveries.filter { !($0.value.runId.map(runs.contains) ?? false) }
            state.plans = state.plans.filter { !runs.contains(UUID(uuidString: $0.value.delivery.runId) ?? UUID()) }
            state.windowDecisions = state.windowDecisions.filter { !runs.contains($0.value.runId) }
            state.outbox.removeAll { $0.runId.map(runs.contains) ?? false }
            for id in runs { state.runs[id] = nil; state.runCreatedMicros[id] = nil }
            let devicePrefix = InMemoryStore.key(tenantId, Topology.dedupeKey(eventId: "", subscriberId: subscriberId, fromDevice: true))
            state.processedEvents = state.processedEvents.filter { !$0.hasPrefix(devicePrefix) }
            state.erased[InMemoryStore.key(tenantId, Digest.sha256Hex(subscriberId))] = at
            state.subscribers[InMemoryStore.key(tenantId, subscriberId)] = nil
            let devices = state.devices.values.filter { $0.tenantId == tenantId && $0.subscriberId == subscriberId }.map(\.id)
            for id in devices { state.devices[id] = nil }
            state.deviceOrder.removeAll { devices.contains($0) }
            let prefix = InMemoryStore.key(tenantId, subscriberId) + "\u{0}"
            state.acknowledgments = state.acknowledgments.filter { !$0.key.hasPrefix(prefix) }
            state.cancelMarks = state.cancelMarks.filter { !$0.key.hasPrefix(prefix) }
            state.plans = state.plans.filter { !($0.value.subscriberId == subscriberId && $0.key.hasPrefix(InMemoryStore.key(tenantId) + "\u{0}")) }
            state.opens.removeAll { open in
                open.tenantId == tenantId && state.deliveries.values.contains { delivery in
                    delivery.messageId == open.messageId && delivery.runId.flatMap { state.runs[$0] }?.subscriberId == subscriberId
                }
            }
        }
    }

    func runs(tenantId: String, _ query: RunQuery) throws -> [RunQuery.Found] {
        read { state in
            state.runs.values.compactMap { run -> RunQuery.Found? in
                guard run.tenantId == tenantId, query.subscriberId.map({ $0 == run.subscriberId }) ?? true,
                      query.workflowKey.map({ $0 == run.workflowKey }) ?? true, query.status.map({ $0 == run.state.status.rawValue }) ?? true else { return nil }
                let cursor = RunQuery.Cursor(createdMicros: state.runCreatedMicros[run.id] ?? 0, id: run.id)
                if let after = query.after, !after.precedes(micros: cursor.createdMicros, id: run.id) { return nil }
                return RunQuery.Found(run: run, cursor: cursor)
            }
            .sorted { $0.cursor.createdMicros != $1.cursor.createdMicros ? $0.cursor.createdMicros > $1.cursor.createdMicros : UUID.precedes($1.run.id, $0.run.id) }
            .prefix(query.limit).map { $0 }
        }
    }

    func recordPlans(_ plans: [SentPlan], at: Date) throws {
        for plan in plans { try recordPlan(tenantId: plan.tenantId, subscriberId: plan.subscriberId, delivery: plan.delivery, at: at) }
    }

    func lockRun(_ id: UUID) throws -> RunRecord? { read { $0.runs[id] } }

    func run(_ id: UUID, tenantId: String) throws -> RunRecord? { read { $0.runs[id].flatMap { $0.tenantId == tenantId ? $0 : nil } } }

    func lockRun(_ id: UUID, tenantId: String) throws -> RunRecord? { try run(id, tenantId: tenantId) }

    func lockRuns(_ ids: [UUID]) throws -> [RunRecord] {
        read { state in Set(ids).sortedByBytes().compactMap { state.runs[$0] } }
    }

    func lockRunHeads(_ ids: [UUID]) throws -> [RunHead] {
        read { state in
            Set(ids).sortedByBytes().compactMap { state.runs[$0] }.map {
                RunHead(id: $0.id, tenantId: $0.tenantId, subscriberId: $0.subscriberId, status: $0.state.status,
                        cancelPending: Self.cancelPending(of: $0, in: state))
            }
        }
    }

    func planPayloads(tenantId: String, localIds: [String]) throws -> [String: Data] {
        read { state in
            var out: [String: Data] = [:]
            for localId in localIds {
                if let plan = state.plans[InMemoryStore.key(tenantId, localId)] { out[localId] = Data(plan.delivery.body.utf8) }
            }
            return out
        }
    }

    func cancelledRuns(_ ids: [UUID]) throws -> Set<UUID> {
        read { state in Set(ids.filter { state.runs[$0].map { $0.state.status == .cancelled } ?? true }) }
    }

    func updateRun(_ run: RunRecord) throws { write { $0.runs[run.id] = run } }

    func updateRuns(_ runs: [RunRecord]) throws { try runs.forEach(updateRun) }

    func acknowledgments(tenantId: String, windows: [WindowKey]) throws -> [UUID: [PlanHolding]] {
        read { state in
            var out: [UUID: [PlanHolding]] = [:]
            for window in windows {
                let prefix = InMemoryStore.key(tenantId, window.subscriberId, window.localId, "")
                for (key, stored) in state.acknowledgments.sorted(by: { $0.key < $1.key }) where key.hasPrefix(prefix) {
                    var holding = stored
                    holding.deviceCounts = stored.device.isEmpty || state.devices.values.contains {
                        $0.tenantId == tenantId && $0.token == stored.device && $0.subscriberId == window.subscriberId && $0.active
                    }
                    out[window.runId, default: []].append(holding)
                }
            }
            return out
        }
    }

    func planDeliveryCounts(localIds: [String]) throws -> [String: Int] {
        read { state in
            var out: [String: Int] = [:]
            let wanted = Set(localIds)
            for (key, delivery) in state.deliveries where delivery.kind == "plan" && delivery.outcome?.status == "sent" {
                let localId = String(key.split(separator: "\u{0}").first ?? "")
                if wanted.contains(localId) { out[localId, default: 0] += 1 }
            }
            return out
        }
    }

    func openRuns(tenantId: String, subscriberId: String, cancelEvent: String) throws -> [UUID] {
        read { state in
            state.runs.values.filter { $0.tenantId == tenantId && $0.subscriberId == subscriberId && $0.cancelEvents.contains(cancelEvent) }.map(\.id)
        }
    }

    func recordCancelMarks(tenantId: String, _ marks: [CancelMark]) throws {
        write { state in
            for mark in CancelMark.latest(marks) {
                let key = InMemoryStore.key(tenantId, mark.subscriberId, mark.event)
                state.cancelMarks[key] = state.cancelMarks[key].map { $0.merging(mark) } ?? mark
            }
        }
    }

    func cancelMarks(tenantId: String, subscriberIds: [String], pendingOnly: Bool) throws -> [CancelMark] {
        read { state in
            let wanted = Set(subscriberIds)
            return state.cancelMarks.filter { $0.key.hasPrefix(InMemoryStore.key(tenantId) + "\u{0}") && wanted.contains($0.value.subscriberId) }
                .map(\.value).filter { $0.pending || !pendingOnly }.sorted { ($0.subscriberId, $0.event) < ($1.subscriberId, $1.event) }
        }
    }

    private static func cancelPending(of run: RunRecord, in state: InMemoryStore.State) -> Bool {
        guard let subscriberId = run.subscriberId else { return false }
        return run.cancelEvents.contains { state.cancelMarks[InMemoryStore.key(run.tenantId, subscriberId, $0)]?.pending == true }
    }

    /// Nothing to take: the in-memory store runs one transaction at a time.
    func holdSubscribers(tenantId: String, _ subscriberIds: [String]) throws {}

    func markEventsProcessed(tenantId: String, eventIds: [String], at: Date) throws -> Set<String> {
        write { state in Set(eventIds.filter { state.processedEvents.insert(InMemoryStore.key(tenantId, $0)).inserted }) }
    }

    func recordPlan(tenantId: String, subscriberId: String?, delivery: LocalPlanDelivery, at: Date) throws {
        write { $0.plans[InMemoryStore.key(tenantId, delivery.localId)] = (subscriberId, delivery) }
    }

    func recordOpen(tenantId: String, subscriberId: String, messageId: String, at: Date) throws {
        write { state in
            // Only a message sent for one of this subscriber's runs; one open per message and time.
            let own = state.deliveries.values.contains { delivery in
                delivery.messageId == messageId && delivery.runId.flatMap { state.runs[$0] }.map { $0.tenantId == tenantId && $0.subscriberId == subscriberId } == true
            }
            guard own, !state.opens.contains(where: { $0.tenantId == tenantId && $0.messageId == messageId && $0.at == at }) else { return }
            state.opens.append((tenantId, messageId, at))
        }
    }

    func enqueue(_ messages: [OutboxMessage], runIds: [UUID?], now: Date) throws -> [Outbox.Row] {
        write { state in
            zip(messages, runIds).map { message, runId in
                let id = state.nextOutboxId
                state.nextOutboxId += 1
                state.outbox.append((id, runId, message))
                return Outbox.Row(id: id, message: message)
            }
        }
    }

    func deleteTimers(runId: UUID) throws { write { $0.outbox.removeAll { $0.runId == runId } } }

    func lockOutboxRows(_ ids: [Int64]) throws -> Set<Int64> {
        // The in-memory store runs one transaction at a time: the rows still there are ours.
        let wanted = Set(ids)
        return read { Set($0.outbox.map(\.id).filter(wanted.contains)) }
    }

    func deleteOutboxRows(_ ids: [Int64]) throws {
        let doomed = Set(ids)
        write { $0.outbox.removeAll { doomed.contains($0.id) } }
    }

    func claimDeliveries(_ requests: [DeliveryRequest], at: Date) throws -> [DeliveryClaim] {
        write { state in
            requests.map { request in
                let key = InMemoryStore.key(request.idempotencyKey, request.deviceId.uuidString)
                if let existing = state.deliveries[key] {
                    return existing.outcome?.status == "failed" ? .retry(since: existing.at) : .alreadyDone
                }
                state.deliveries[key] = (request.runId, request.kind, request.messageId, nil, at, state.deliveries.count)
                return .send
            }
        }
    }

    func recordDeliveries(_ deliveries: [DeliveryResult], at: Date) throws {
        write { state in
            for result in deliveries {
                let request = result.request, outcome = result.outcome
                let key = InMemoryStore.key(request.idempotencyKey, request.deviceId.uuidString)
                if let existing = state.deliveries[key] {
                    guard existing.outcome?.status == "failed" else { continue }
                    state.deliveries[key]?.outcome = outcome
                    continue
                }
                state.deliveries[key] = (request.runId, request.kind, request.messageId, outcome, at, state.deliveries.count)
            }
        }
    }

    func finishDeliveries(_ outcomes: [DeliveryResult], at: Date) throws {
        write { state in
            for item in outcomes { state.deliveries[InMemoryStore.key(item.request.idempotencyKey, item.request.deviceId.uuidString)]?.outcome = item.outcome }
        }
    }

    func activity(tenantId: String, runIds: [UUID]) throws -> [UUID: RunActivity] {
        read { state in
            let wanted = Set(runIds)
            var out: [UUID: RunActivity] = [:]
            for (key, delivery) in state.deliveries.sorted(by: { $0.value.order < $1.value.order }) {
                guard let runId = delivery.runId, wanted.contains(runId), state.runs[runId]?.tenantId == tenantId else { continue }
                let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
                let device = UUID(uuidString: String(parts.last ?? "")).flatMap { state.devices[$0] }
                out[runId, default: RunActivity()].deliveries.append(RunActivity.Entry(
                    idempotencyKey: parts.dropLast().joined(separator: "\u{0}"),
                    delivery: RunSummary.Delivery(tokenSuffix: device.map { String($0.token.suffix(8)) } ?? "", kind: delivery.kind,
                                                  status: delivery.outcome?.status ?? "pending", apnsId: delivery.outcome?.apnsId, at: delivery.at,
                                                  reason: delivery.outcome?.reason)))
            }
            for open in state.opens.sorted(by: { $0.at < $1.at }) where open.tenantId == tenantId {
                guard let runId = state.deliveries.values.first(where: { $0.messageId == open.messageId })?.runId, wanted.contains(runId) else { continue }
                let first = RunSummary.Opened(messageId: open.messageId, at: open.at)
                if out[runId]?.opened == nil { out[runId, default: RunActivity()].opened = first }
                if !(out[runId]?.opens.contains { $0.messageId == open.messageId } ?? false) { out[runId, default: RunActivity()].opens.append(first) }
            }
            for action in state.actions.sorted(by: { ($0.at, $0.actionId) < ($1.at, $1.actionId) }) where action.tenantId == tenantId {
                guard let runId = state.deliveries.values.first(where: { $0.messageId == action.messageId })?.runId, wanted.contains(runId) else { continue }
                out[runId, default: RunActivity()].actions.append(RunActivity.Action(messageId: action.messageId, taken: RunSummary.ActionTaken(actionId: action.actionId, at: action.at)))
            }
            return out
        }
    }

    func planRecipients(runId: UUID) throws -> [DeviceRecord] {
        read { state in
            // Sent, or being sent (no outcome yet): it may have reached the phone.
            let ids = Set(state.deliveries.filter { $0.value.runId == runId && $0.value.kind == "plan" && ($0.value.outcome?.status ?? "sent") == "sent" }
                .compactMap { UUID(uuidString: String($0.key.split(separator: "\u{0}").last!)) })
            let run = state.runs[runId]
            return state.deviceOrder.filter { ids.contains($0) }.compactMap { state.devices[$0] }
                .filter { $0.active && $0.tenantId == run?.tenantId && $0.subscriberId == run?.subscriberId }
        }
    }
}

