import AMQPModel
import BuzzPipeline
import BuzzServerCore
import BuzzStore
import Foundation
import PostgresClient

/// `buzzkit scheduler`: moves due outbox rows (timers, and immediate messages whose worker
/// died before relaying them) from PostgreSQL to RabbitMQ.
///
/// Each round claims a batch with `FOR UPDATE SKIP LOCKED`, publishes it with confirms and
/// deletes the rows in the same transaction only after every confirm, so any number of
/// schedulers can run side by side and a crash republishes rather than loses. Rows are taken
/// when `available_at <= now()` on the database clock, so a timer never fires early. Between
/// rounds it sleeps until the next due row, at most a second, and wakes at once on NOTIFY.
public final class Scheduler: Service, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var batchSize: Int
        /// Longest sleep between looks at the next due time.
        public var maxIdle: TimeInterval
        /// Shortest sleep after a round that was not full.
        public var minimumPause: TimeInterval = 0.025
        /// Queues whose due messages are packed `packSize` to a broker message (the
        /// pipeline-message queues; see ``Outbox``'s packing). Empty: one message each.
        public var packable: Set<String>
        public var packSize: Int
        /// Relay loops run side by side (each claims its own rows with `SKIP LOCKED`): while
        /// one waits for its confirms and commit, another claims the next batch.
        public var relays: Int
        /// Rows claimed between two vacuums of the outbox (``OutboxStore/vacuum()``); 0: never.
        public var vacuumEvery: Int

        public init(batchSize: Int = 1000, maxIdle: TimeInterval = 1, packable: Set<String> = [], packSize: Int = 100, relays: Int = 1,
                    vacuumEvery: Int = 0) {
            self.batchSize = batchSize
            self.maxIdle = maxIdle
            self.packable = packable
            self.packSize = packSize
            self.relays = relays
            self.vacuumEvery = vacuumEvery
        }

        /// Packing for `topology`'s pipeline-message queues, `packSize` to a message (a worker's batch).
        public init(batchSize: Int = 1000, topology: Topology, packSize: Int, relays: Int = 1, vacuumEvery: Int = 0) {
            self.init(batchSize: batchSize, packable: topology.packableQueues, packSize: packSize, relays: relays, vacuumEvery: vacuumEvery)
        }
    }

    let outbox: any OutboxStore
    let broker: any Broker
    /// Where to LISTEN for timers due soon (nil: look every `maxIdle` only).
    let databaseURL: String?
    let configuration: Configuration
    let metrics: Metrics?
    let log: Log?
    let lock = NSLock()
    private var stopping = false
    /// Rows claimed since the last vacuum, and whether one runs (``noteClaimed(_:)``).
    var claimedSinceVacuum = 0
    var vacuuming = false
    private var lastFullRound = Date.distantPast
    private let done = DispatchSemaphore(value: 0)

    public init(outbox: any OutboxStore, broker: any Broker, databaseURL: String?,
                configuration: Configuration = Configuration(), metrics: Metrics? = nil, log: Log? = nil) {
        self.outbox = outbox
        self.broker = broker
        self.log = log
        self.databaseURL = databaseURL
        self.configuration = configuration
        self.metrics = metrics
    }

    /// On PostgreSQL, waking on its NOTIFY.
    public convenience init(pool: PostgresPool, broker: any Broker, databaseURL: String,
                            configuration: Configuration = Configuration(), metrics: Metrics? = nil, log: Log? = nil) {
        self.init(outbox: PostgresOutbox(pool: pool), broker: broker, databaseURL: databaseURL, configuration: configuration, metrics: metrics, log: log)
    }

    /// Relays one batch of due rows (settling the windows a device holds); returns how many
    /// rows it took.
    @discardableResult
    public func relayDue() throws -> Int {
        let round = try outbox.relayDue(limit: configuration.batchSize, settle: WindowDecider.settleHeld) { messages, lateness in
            for late in lateness { self.metrics?.observeTimerLateness(late) }
            let published = Outbox.amqpMessages(messages, packing: configuration.packable, size: configuration.packSize)
            if !published.isEmpty { try broker.publishAndWait(published) }
        }
        if round.settled > 0 {
            metrics?.increment("buzzkit_fallback_checks_total", ["outcome": "confirmed"], by: Double(round.settled),
                               help: "Local windows decided at their moment")
            metrics?.increment("buzzkit_windows_settled_total", by: Double(round.settled),
                               help: "Acknowledged windows the scheduler settled at their moment without a queue message")
        }
        noteClaimed(round.claimed, full: round.claimed >= configuration.batchSize)
        return round.claimed
    }

    /// Seconds until the next row is due (0 when one is due now, nil when the outbox is empty).
    func secondsUntilNextDue() throws -> Double? { try outbox.secondsUntilNextDue() }

    /// Runs until ``stop()``: ``Configuration/relays`` loops that relay, then sleep until the
    /// next due row or a NOTIFY.
    public func run() {
        defer { done.signal() }
        let others = (1..<max(1, configuration.relays)).map { _ in
            let finished = DispatchSemaphore(value: 0)
            Thread { self.relayLoop(); finished.signal() }.start()
            return finished
        }
        relayLoop()
        others.forEach { $0.wait() }
        waitForVacuum(timeout: 10)
    }

    private func relayLoop() {
        var listener: PostgresConnection?
        var lastFailure: String?, lastLogged = Date.distantPast
        while !isStopping {
            do {
                if let databaseURL, listener == nil || listener?.isHealthy == false {
                    listener = try PostgresConnection(url: databaseURL, applicationName: "buzzkit-scheduler")
                    try listener?.listen(Outbox.channel)
                }
                if try relayDue() >= configuration.batchSize {
                    markFullRound()
                    continue
                }
                // At least `minimumPause` between partial rounds: timers due every millisecond
                // go out in batches a few tens of milliseconds apart, not a round trip each.
                let wait = try secondsUntilNextDue() ?? configuration.maxIdle
                let timeout = min(max(wait, configuration.minimumPause), configuration.maxIdle)
                if let listener { _ = try listener.waitForNotifications(timeout: timeout) } else { Thread.sleep(forTimeInterval: timeout) }
            } catch {
                // Logged when the failure starts or changes, and every 10 s while it lasts.
                let cause = "\(error)"
                if cause != lastFailure || Date().timeIntervalSince(lastLogged) >= 10 {
                    log?.warning("scheduler round failed; retrying", ["error": cause])
                    lastFailure = cause
                    lastLogged = Date()
                }
                listener?.close()
                listener = nil
                Thread.sleep(forTimeInterval: 0.2)
                continue
            }
            if lastFailure != nil {
                log?.info("scheduler recovered")
                lastFailure = nil
            }
        }
        listener?.close()
    }

    public let name = "scheduler"

    /// Stops after the current round (a claimed batch is published and committed first, well
    /// within any deadline a person would set).
    public func shutdown(deadline: Date) { stop() }

    /// Stops after the current round (a claimed batch is published and committed first).
    public func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
    }

    /// Waits until ``run()`` has returned.
    public func waitUntilStopped(timeout: TimeInterval) -> Bool {
        done.wait(timeout: .now() + timeout) == .success
    }

    /// Whether due rows are waiting for this scheduler: a round within the last
    /// ``backlogMemory`` seconds came back full (a 07:00 burst being claimed). The window
    /// completer beside it yields meanwhile (``WindowCompleter``).
    public var isBehind: Bool {
        lock.lock(); defer { lock.unlock() }
        return Date().timeIntervalSince(lastFullRound) < Self.backlogMemory
    }

    /// How long a full round counts as a backlog.
    static let backlogMemory: TimeInterval = 0.25

    private func markFullRound() {
        lock.lock()
        lastFullRound = Date()
        lock.unlock()
    }

    private var isStopping: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopping
    }
}
