import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation
import PushDelivery

/// What every stage needs: storage, topology, the push provider, the clock and metrics.
public struct PipelineContext: Sendable {
    public var store: any Store
    public var topology: Topology
    public var push: any PushProvider
    public var clock: any Clock
    public var metrics: Metrics
    /// Where stages report failures (one JSON line each).
    public var log = Log(format: .json, component: "pipeline")
    /// Which lane each message of a run takes, and the least lead a plan is sent with.
    public var lanes = LaneSettings()
    /// Pipeline messages a stage packs into one outbox row and broker message (a worker's
    /// batch size, `BUZZKIT_BATCH_SIZE`).
    public var packSize = 100
    /// How many windows that end their runs a `fallback-check` batch must carry for the worker
    /// to decide them without loading their runs (``WindowFallbacks``): a crowded second, where
    /// the run writes are better left to the window completer. Fewer are decided through the
    /// engine in the same transaction, which costs less in all. Half of `BUZZKIT_BATCH_SIZE` in
    /// the servers; 1 (always) by default.
    public var crowdedWindows = 1

    public init(store: any Store, topology: Topology, push: any PushProvider, clock: any Clock = SystemClock(), metrics: Metrics = Metrics()) {
        self.store = store
        self.topology = topology
        self.push = push
        self.clock = clock
        self.metrics = metrics
    }

    package var actions: RunActions { RunActions(topology: topology, lanes: lanes, packSize: packSize) }
}

/// Reads tenants and subscribers once per transaction.
final class SettingsCache {
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
