import BuzzEngine
import BuzzStore
import Foundation

/// What one transaction looks up for a batch, read once each: tenants (time zone, quiet
/// hours), subscribers, the current workflows an event triggers, and the events that cancel
/// a tenant's runs.
final class BatchLookups {
    let tx: any StoreTransaction
    private var tenants: [String: TenantRecord?] = [:]
    private var subscribers: [String: SubscriberRecord?] = [:]
    private var workflows: [String: [WorkflowRecord]] = [:]
    private var cancelNames: [String: Set<String>] = [:]

    init(_ tx: any StoreTransaction) { self.tx = tx }

    func tenant(_ id: String) throws -> TenantRecord? {
        if let cached = tenants[id] { return cached }
        let loaded = try tx.tenant(id)
        tenants[id] = loaded
        return loaded
    }

    func subscriber(tenantId: String, id: String) throws -> SubscriberRecord? {
        let key = tenantId + "\u{0}" + id
        if let cached = subscribers[key] { return cached }
        let loaded = try tx.subscriber(tenantId: tenantId, id: id)
        subscribers[key] = loaded
        return loaded
    }

    /// Loads the batch's subscribers of one tenant in one query (missing ones are remembered
    /// as missing), so a batch of runs does not look them up one by one.
    func preloadSubscribers(tenantId: String, ids: some Sequence<String>) throws {
        let wanted = Set(ids).filter { subscribers[tenantId + "\u{0}" + $0] == nil }
        guard !wanted.isEmpty else { return }
        for id in wanted { subscribers[tenantId + "\u{0}" + id] = .some(nil) }
        for record in try tx.subscribers(tenantId: tenantId, ids: Array(wanted)) { subscribers[tenantId + "\u{0}" + record.id] = record }
    }

    /// Current workflows triggered by `event` (read once per transaction).
    func workflows(tenantId: String, triggeredBy event: String) throws -> [WorkflowRecord] {
        let key = tenantId + "\u{0}" + event
        if let cached = workflows[key] { return cached }
        let loaded = try tx.workflows(tenantId: tenantId, triggeredBy: event)
        workflows[key] = loaded
        return loaded
    }

    /// Whether any current workflow of the tenant cancels on `event`.
    func cancels(tenantId: String, event: String) throws -> Bool {
        if let names = cancelNames[tenantId] { return names.contains(event) }
        let names = try tx.cancelEventNames(tenantId: tenantId)
        cancelNames[tenantId] = names
        return names.contains(event)
    }

    /// Whether any workflow of the tenant cancels on some event.
    func hasCancellingWorkflows(tenantId: String) throws -> Bool {
        _ = try cancels(tenantId: tenantId, event: "")
        return !(cancelNames[tenantId] ?? []).isEmpty
    }

    /// Brings the run's view of the subscriber and tenant up to date before it handles input.
    func refresh(_ run: inout RunRecord) throws {
        guard let tenant = try tenant(run.tenantId) else { return }
        let subscriber = try run.subscriberId.flatMap { try self.subscriber(tenantId: run.tenantId, id: $0) }
        run.state.refresh(hasSubscriber: subscriber != nil, subscriberTimeZone: subscriber?.timezone,
                          tenantDefaultTimeZone: tenant.defaultTimezone, quietHours: tenant.quietHours)
    }
}
