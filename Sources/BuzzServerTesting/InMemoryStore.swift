import BuzzEngine
import BuzzKitWire
import BuzzServer
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
        /// The current version of each workflow (``InMemoryStore/key(_:)`` of tenant and key).
        public var workflows: [String: WorkflowRecord] = [:]
        /// When each workflow's current version was stored, and when it was retired (by the same key).
        public var workflowUpdatedAt: [String: Date] = [:]
        /// Every version stored, oldest first, by tenant and key.
        public var workflowVersions: [String: [WorkflowVersion]] = [:]
        public var retiredWorkflows: [String: Date] = [:]
        /// Every event name any version of a tenant's workflows cancels on (it only grows:
        /// runs of older versions may still cancel on names a new version dropped).
        public var cancelEvents: [String: Set<String>] = [:]
        /// API keys by id.
        public var keys: [String: StoredKey] = [:]
        /// When each device was last registered, as a sequence (the device cap keeps the latest).
        public var registrations: [UUID: Int] = [:]
        public var nextRegistration = 0
        public var runs: [UUID: RunRecord] = [:]
        /// When each run was inserted, in microseconds since 1970 (the order of run search).
        public var runCreatedMicros: [UUID: Int64] = [:]
        public var processedEvents: Set<String> = []
        /// By tenant, subscriber and event name (``InMemoryStore/key(_:)``).
        public var cancelMarks: [String: CancelMark] = [:]
        /// By tenant, subscriber, local id and device (``InMemoryStore/key(_:)``); `deviceCounts` unused (computed on reading).
        public var acknowledgments: [String: PlanHolding] = [:]
        public var plans: [String: (subscriberId: String?, delivery: LocalPlanDelivery)] = [:]
        /// Plans whose window's fallback was decided, by tenant and local id (``InMemoryStore/key(_:)``).
        public var fallbacksDecided: Set<String> = []
        public var opens: [(tenantId: String, messageId: String, at: Date)] = []
        public var actions: [(tenantId: String, messageId: String, actionId: String, at: Date)] = []
        public var outbox: [(id: Int64, runId: UUID?, message: OutboxMessage)] = []
        /// Windows the scheduler settled, by run id and local id (``InMemoryStore/key(_:)``).
        public var windowDecisions: [String: WindowDecision] = [:]
        /// The decisions filed: learnt by their runs at once, or their runs filed under
        /// `completed` by the window completer.
        public var filedDecisions: Set<String> = []
        public var nextOutboxId: Int64 = 1
        public var deliveries: [String: (runId: UUID?, kind: String, messageId: String?, outcome: DeliveryOutcome?, at: Date, order: Int)] = [:]
        public var deactivated: [UUID: (reason: String, at: Date)] = [:]
        /// Tombstones of erased subscribers: when, by tenant and the SHA-256 of the id (``InMemoryStore/key(_:)``).
        public var erased: [String: Date] = [:]
        /// When each device last registered (a 410 older than it leaves the device active).
        public var registeredAt: [UUID: Date] = [:]
    }

    /// An API key as stored: its secret only as a hash.
    public struct StoredKey: Sendable {
        public var tenantId: String
        public var kind: APIKey.Kind
        public var secretHash: String
        public var createdAt: Date
        public var revokedAt: Date?
    }

    private let lock = NSRecursiveLock()
    var state = State()
    /// The in-memory world's one clock: the directory's and the outbox's times.
    public let clock: any Clock

    public init(clock: any Clock = SystemClock()) { self.clock = clock }

    /// Transactions still to fail before they start, as PostgreSQL's would during an outage
    /// (``failNextTransactions(_:)``).
    private var failing = 0

    /// Plays a short database outage: the next `count` transactions throw an `unavailable`
    /// error before their body runs, changing nothing.
    public func failNextTransactions(_ count: Int) {
        lock.lock()
        defer { lock.unlock() }
        failing = count
    }

    /// Plays a long outage: until it is set back, every transaction and directory lookup
    /// throws an `unavailable` error.
    public func setDown(_ down: Bool) {
        lock.lock()
        defer { lock.unlock() }
        isDown = down
    }

    private var isDown = false

    /// Throws what PostgreSQL's unreachability would, while ``setDown(_:)`` plays an outage.
    public func checkUp() throws {
        lock.lock()
        defer { lock.unlock() }
        if isDown { throw ServerError(.unavailable, "the in-memory store plays an outage") }
    }

    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if isDown { throw ServerError(.unavailable, "the in-memory store plays an outage") }
        if failing > 0 {
            failing -= 1
            throw ServerError(.unavailable, "the in-memory store plays an outage")
        }
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
