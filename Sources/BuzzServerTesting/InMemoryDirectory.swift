import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation

/// The ``Directory`` port over an ``InMemoryStore``'s state: what the API writes, the
/// in-memory pipeline reads, as with PostgreSQL. Times come from the store's clock.
public struct InMemoryDirectory: Directory {
    public let store: InMemoryStore
    var clock: any Clock { store.clock }

    public init(store: InMemoryStore) { self.store = store }

    public func ping() throws {}

    public func createTenant(name: String, defaultTimezone: String) throws -> TenantCredentials {
        let tenantId = "t_" + Digest.randomHex(byteCount: 8)
        let secret = APIKey.generate(.secret), publishable = APIKey.generate(.publishable)
        let signingSecret = "ss_" + Digest.randomHex(byteCount: 32)
        store.withState { state in
            state.tenants[tenantId] = TenantRecord(id: tenantId, name: name, defaultTimezone: defaultTimezone, signingSecret: signingSecret)
            for key in [secret, publishable] { state.keys[key.id] = stored(key, tenantId: tenantId) }
        }
        return TenantCredentials(tenantId: tenantId, secretKey: secret.text, publishableKey: publishable.text, signingSecret: signingSecret)
    }

    private func stored(_ key: APIKey, tenantId: String) -> InMemoryStore.StoredKey {
        InMemoryStore.StoredKey(tenantId: tenantId, kind: key.kind, secretHash: key.secretHash, createdAt: clock.now, revokedAt: nil)
    }

    public func authenticate(_ key: APIKey) throws -> (tenant: TenantRecord, kind: APIKey.Kind)? {
        try store.checkUp()
        return store.withState { state in
            guard let stored = state.keys[key.id], stored.revokedAt == nil, Digest.constantTimeEqual(stored.secretHash, key.secretHash),
                  stored.kind == key.kind, let tenant = state.tenants[stored.tenantId] else { return nil }
            return (tenant, key.kind)
        }
    }

    public func tenant(_ id: String) throws -> TenantRecord? { store.withState { $0.tenants[id] } }

    public func updateSettings(tenantId: String, quietHours: QuietHours??, defaultTimezone: String?, allowedTopics: [String]?) throws {
        store.withState { state in
            guard var tenant = state.tenants[tenantId] else { return }
            if let quietHours { tenant.quietHours = quietHours }
            if let defaultTimezone { tenant.defaultTimezone = defaultTimezone }
            if let allowedTopics { tenant.allowedTopics = allowedTopics }
            state.tenants[tenantId] = tenant
        }
    }

    public func createKey(tenantId: String, kind: APIKey.Kind) throws -> String {
        let key = APIKey.generate(kind)
        try store.withState { state in
            guard state.tenants[tenantId] != nil else { throw ServerError(.notFound, "there is no tenant \(tenantId)", field: "tenant") }
            state.keys[key.id] = stored(key, tenantId: tenantId)
        }
        return key.text
    }

    public func revokeKey(tenantId: String, keyId: String) throws {
        let now = clock.now
        try store.withState { state in
            guard let key = state.keys[keyId], key.tenantId == tenantId, key.revokedAt == nil else {
                throw ServerError(.notFound, "tenant \(tenantId) has no unrevoked key \(keyId)", field: "key")
            }
            state.keys[keyId]?.revokedAt = now
        }
    }

    public func keys(tenantId: String) throws -> [KeyListing] {
        store.withState { state in
            state.keys.filter { $0.value.tenantId == tenantId }
                .map { KeyListing(id: $0.key, kind: $0.value.kind.rawValue, createdAt: $0.value.createdAt, revokedAt: $0.value.revokedAt) }
                .sorted { ($0.createdAt, $1.id) > ($1.createdAt, $0.id) }
        }
    }

    public func rotateSigningSecret(tenantId: String, grace: TimeInterval) throws -> String {
        let secret = "ss_" + Digest.randomHex(byteCount: 32)
        let until = clock.now.addingTimeInterval(max(0, grace))
        try store.withState { state in
            guard var tenant = state.tenants[tenantId] else { throw ServerError(.notFound, "there is no tenant \(tenantId)", field: "tenant") }
            tenant.previousSigningSecret = tenant.signingSecret
            tenant.previousSigningSecretUntil = until
            tenant.signingSecret = secret
            state.tenants[tenantId] = tenant
        }
        return secret
    }

    public func putSubscriber(_ subscriber: SubscriberRecord) throws {
        store.withState { state in
            state.subscribers[InMemoryStore.key(subscriber.tenantId, subscriber.id)] = subscriber
            state.erased[InMemoryStore.key(subscriber.tenantId, Digest.sha256Hex(subscriber.id))] = nil
        }
    }

    public func erasedSubscribers(tenantId: String, ids: [String]) throws -> Set<String> {
        store.withState { state in Set(ids.filter { state.erased[InMemoryStore.key(tenantId, Digest.sha256Hex($0))] != nil }) }
    }

    public func subscriberProfile(tenantId: String, id: String) throws -> (subscriber: SubscriberRecord, devices: [DeviceRecord])? {
        store.withState { state in
            guard let subscriber = state.subscribers[InMemoryStore.key(tenantId, id)] else { return nil }
            let devices = state.deviceOrder.compactMap { state.devices[$0] }.filter { $0.tenantId == tenantId && $0.subscriberId == id }
            return (subscriber, devices)
        }
    }

    public func setSubscriberTimezone(tenantId: String, id: String, timezone: String) throws {
        store.withState { $0.subscribers[InMemoryStore.key(tenantId, id)]?.timezone = timezone }
    }

    public func subscriberExists(tenantId: String, id: String) throws -> Bool {
        store.withState { $0.subscribers[InMemoryStore.key(tenantId, id)] != nil }
    }

    @discardableResult
    public func putDevice(_ device: DeviceRecord, maxActive: Int, replacing: String?) throws -> UUID {
        store.withState { state in
            let owner = InMemoryStore.key(device.tenantId, device.subscriberId)
            if state.subscribers[owner] == nil { state.subscribers[owner] = SubscriberRecord(tenantId: device.tenantId, id: device.subscriberId) }
            var record = device
            if let existing = state.devices.values.first(where: { $0.tenantId == device.tenantId && $0.token == device.token }) {
                record = existing
                record.subscriberId = device.subscriberId
                record.topic = device.topic
                record.environment = device.environment
                record.authorization = device.authorization ?? existing.authorization
                // A new install of the app on this token: the old install's acknowledgments of
                // open runs' windows no longer hold (as PostgresDirectory does).
                if let installId = device.installId, let previous = existing.installId, previous != installId {
                    Self.retireAcknowledgments(of: [device.token], tenantId: device.tenantId, in: &state)
                }
                record.installId = device.installId ?? existing.installId
            } else {
                state.deviceOrder.append(device.id)
            }
            // The install this one replaced on the phone: its tokens are dead (as PostgresDirectory).
            if let replacing, replacing != device.installId {
                let replaced = state.devices.values.filter { $0.tenantId == device.tenantId && $0.installId == replacing && $0.token != device.token }
                Self.retireAcknowledgments(of: Set(replaced.map(\.token)), tenantId: device.tenantId, in: &state)
                for old in replaced where old.active {
                    state.devices[old.id]?.active = false
                    state.deactivated[old.id] = (DeviceRecord.reinstalledReason, clock.now)
                }
            }
            record.active = true
            state.deactivated[record.id] = nil
            state.devices[record.id] = record
            state.registrations[record.id] = state.nextRegistration
            state.registeredAt[record.id] = clock.now
            state.nextRegistration += 1
            // Past the cap, the least recently registered active devices turn inactive.
            let active = state.devices.values.filter { $0.tenantId == device.tenantId && $0.subscriberId == device.subscriberId && $0.active }
                .sorted { (state.registrations[$0.id] ?? 0) > (state.registrations[$1.id] ?? 0) }
            for extra in active.dropFirst(max(0, maxActive)) {
                state.devices[extra.id]?.active = false
                state.deactivated[extra.id] = ("device limit", clock.now)
            }
            return record.id
        }
    }

    /// Drops what `tokens` acknowledged for the windows of open runs (a deleted install's).
    private static func retireAcknowledgments(of tokens: Set<String>, tenantId: String, in state: inout InMemoryStore.State) {
        guard !tokens.isEmpty else { return }
        state.acknowledgments = state.acknowledgments.filter { key, holding in
            guard tokens.contains(holding.device), key.hasPrefix(InMemoryStore.key(tenantId) + "\u{0}"),
                  let plan = state.plans[InMemoryStore.key(tenantId, holding.localId)],
                  let run = UUID(uuidString: plan.delivery.runId).flatMap({ state.runs[$0] }) else { return true }
            return run.state.status.isFinal
        }
    }

    public func deactivateDevice(tenantId: String, subscriberId: String, token: String, reason: String, at: Date) throws -> DeviceDeactivation {
        store.withState { state in
            guard let device = state.devices.values.first(where: { $0.tenantId == tenantId && $0.subscriberId == subscriberId && $0.token == token }) else {
                return .notFound
            }
            guard device.active else { return .alreadyInactive }
            state.devices[device.id]?.active = false
            state.deactivated[device.id] = (reason, at)
            return .deactivated
        }
    }

    public func pendingPlans(tenantId: String, subscriberId: String, now: Date) throws -> [LocalPlan] {
        store.withState { state in
            state.plans.values.filter { plan in
                guard plan.subscriberId == subscriberId, plan.delivery.moment > now, let runId = UUID(uuidString: plan.delivery.runId),
                      let run = state.runs[runId], run.tenantId == tenantId, !run.dryRun else { return false }
                return run.state.status == .running || run.state.status == .waiting
            }
            .sorted { ($0.delivery.moment, $0.delivery.localId) < ($1.delivery.moment, $1.delivery.localId) }
            .map(\.delivery.payload.local)
        }
    }

    @discardableResult
    public func putWorkflow(tenantId: String, definition: WorkflowDefinition, source: JSONValue) throws -> Int {
        store.withState { state in
            let key = InMemoryStore.key(tenantId, definition.key)
            let version = (state.workflows[key]?.version ?? 0) + 1
            state.workflows[key] = WorkflowRecord(tenantId: tenantId, key: definition.key, version: version, definition: definition, source: source)
            state.workflowUpdatedAt[key] = store.clock.now
            state.workflowVersions[key, default: []].append(WorkflowVersion(version: version, createdAt: store.clock.now, source: source))
            state.retiredWorkflows[key] = nil
            state.cancelEvents[tenantId, default: []].formUnion(definition.cancelOn.map(\.event))
            return version
        }
    }

    public func workflow(tenantId: String, key: String) throws -> (version: Int, source: JSONValue)? {
        store.withState { state in
            let id = InMemoryStore.key(tenantId, key)
            return state.retiredWorkflows[id] == nil ? state.workflows[id].map { ($0.version, $0.source) } : nil
        }
    }

    public func workflowVersions(tenantId: String, key: String, limit: Int) throws -> (current: Int?, versions: [WorkflowVersion]) {
        store.withState { state in
            let id = InMemoryStore.key(tenantId, key)
            let current = state.retiredWorkflows[id] == nil ? state.workflows[id]?.version : nil
            return (current, Array((state.workflowVersions[id] ?? []).reversed().prefix(limit)))
        }
    }

    public func workflows(tenantId: String) throws -> [WorkflowListing] {
        store.withState { state in
            state.workflows.filter { $0.value.tenantId == tenantId && state.retiredWorkflows[$0.key] == nil }
                .map { WorkflowListing(key: $0.value.key, version: $0.value.version, updatedAt: state.workflowUpdatedAt[$0.key] ?? .distantPast) }
                .sorted { $0.key < $1.key }
        }
    }

    public func retireWorkflow(tenantId: String, key: String, at: Date) throws -> Bool {
        store.withState { state in
            let id = InMemoryStore.key(tenantId, key)
            guard state.workflows[id] != nil, state.retiredWorkflows[id] == nil else { return false }
            state.retiredWorkflows[id] = at
            state.workflowUpdatedAt[id] = at
            return true
        }
    }
}
