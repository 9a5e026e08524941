import BuzzEngine
import BuzzKitWire
import Foundation

/// A ``Store`` in memory, for unit tests of the pipeline's stages without services.
/// Transactions run one at a time; a thrown error restores the state from before it.
public final class InMemoryStore: Store, @unchecked Sendable {
    /// Everything the store holds (a value, so a transaction can be rolled back).
    public struct State: Sendable {
        public var tenants: [String: TenantRecord] = [:]
        public var subscribers: [String: SubscriberRecord] = [:]
        public var devices: [UUID: DeviceRecord] = [:]
        public var deviceOrder: [UUID] = []
        public var workflows: [String: WorkflowRecord] = [:]
        public var runs: [UUID: RunRecord] = [:]
        public var processedEvents: Set<String> = []
        /// By tenant, subscriber, local id and device (``InMemoryStore/key(_:)``); `deviceCounts` unused (computed on reading).
        public var acknowledgments: [String: PlanHolding] = [:]
        public var plans: [String: LocalPlanDelivery] = [:]
        public var opens: [(tenantId: String, messageId: String, at: Date)] = []
        public var outbox: [(id: Int64, runId: UUID?, message: OutboxMessage)] = []
        public var nextOutboxId: Int64 = 1
        public var deliveries: [String: (runId: UUID?, kind: String, messageId: String?, outcome: DeliveryOutcome?)] = [:]
        public var deactivated: [UUID: (reason: String, at: Date)] = [:]
    }

    private let lock = NSRecursiveLock()
    var state = State()

    public init() {}

    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let snapshot = state
        do {
            return try body(InMemoryStoreTransaction(store: self))
        } catch {
            state = snapshot
            throw error
        }
    }

    /// Reads or changes the state directly (test setup and assertions).
    public func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    static func key(_ parts: String...) -> String { parts.joined(separator: "\u{0}") }
}
