import AMQPModel
import BuzzServerCore
import BuzzStore
import Foundation

/// Consumes one work queue of any ``Broker``: deliveries are batched, processed by worker
/// threads (one transaction per batch), their outbox rows relayed, and then acknowledged.
/// The in-memory pipeline runs the same worker without threads (``processPending()``).
///
/// A failing batch is retried message by message. A message that cannot be understood is
/// dead-lettered at once with the reason in its headers; a message failing for another
/// reason is returned to the queue, whose delivery limit dead-letters it in the end. While
/// PostgreSQL or RabbitMQ is unreachable the message is held and retried in place; an outage
/// that outlasts the hold sends it back as a fresh copy (see ``returnAfterOutage``), so an
/// outage never uses up delivery attempts, however long it lasts.
final class QueueWorker: @unchecked Sendable {
    struct Settings: Sendable {
        var prefetch: UInt16 = 200
        var threads: Int = 2
        var maxBatch: Int = 100
        /// How long an outage may hold a message before it goes back to the queue (as a fresh copy).
        var outageHold: TimeInterval = 120
        /// How long the oldest waiting message may wait for a fuller batch (0: take what is
        /// there). A transaction's statements, commit and round trips cost the same for one
        /// message as for a hundred, so at a moderate rate a few milliseconds' wait saves more
        /// CPU than anything done per message.
        var linger: TimeInterval = 0
    }

    let queue: Topology.Queue
    let context: PipelineContext
    /// Where the queue is consumed and failures are dead-lettered or returned.
    let broker: any Broker
    /// Where committed outbox rows are published (`broker`, unless a drill wraps it).
    let relayBroker: any Broker
    let outbox: any OutboxStore
    let settings: Settings
    let processor: StageProcessor
    private let condition = NSCondition()
    private var pending: [any BrokerDelivery] = []
    /// When each of `pending` arrived (monotonic seconds), and the messages they carry.
    private var arrivals: [TimeInterval] = []
    private var pendingItems = 0
    private var stopping = false
    private var draining = false
    private var busy = 0
    private var threads: [Thread] = []
    private var consumer: (any BrokerSubscription)!
    /// A bulk queue's pacing while interactive work waits (nil for interactive queues).
    var gate: LaneGate?

    init(queue: Topology.Queue, context: PipelineContext, broker: any Broker, relayBroker: (any Broker)? = nil, outbox: any OutboxStore,
         settings: Settings) {
        self.queue = queue
        self.context = context
        self.broker = broker
        self.relayBroker = relayBroker ?? broker
        self.outbox = outbox
        self.settings = settings
        self.processor = StageProcessor(context: context)
        consumer = broker.subscribe(queue, prefetch: settings.prefetch) { [weak self] delivery in
            self?.enqueue(delivery)
        }
    }

    func start() {
        for index in 0..<settings.threads {
            let thread = Thread { [self] in self.workLoop() }
            thread.name = "buzzkit.worker.\(queue.rawValue).\(index)"
            threads.append(thread)
            thread.start()
        }
        consumer.start()
    }

    /// Stops intake, finishes and acknowledges what was handed out (within `grace`), closes.
    ///
    /// Order matters: the subscription is cancelled first and the broker's confirmation
    /// awaited, so every delivery that will ever arrive has arrived; then the worker threads
    /// finish what they hold; then the consumer sends the last acks and closes.
    func stop(grace: TimeInterval) {
        let deadline = Date().addingTimeInterval(grace)
        condition.lock()
        draining = true
        condition.unlock()
        let cancelled = consumer.cancel(timeout: grace)
        context.log.info("consumer cancelled", ["queue": queue.rawValue, "confirmed": "\(cancelled)", "unsettled": "\(consumer.unsettledCount)"])
        condition.lock()
        while (!pending.isEmpty || busy > 0) && Date() < deadline { _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.05))) }
        stopping = true
        condition.broadcast()
        condition.unlock()
        context.log.info("work drained", ["queue": queue.rawValue, "pending": "\(pending.count)", "unsettled": "\(consumer.unsettledCount)"])
        consumer.stop(grace: max(0, deadline.timeIntervalSinceNow))
        context.log.info("consumer closed", ["queue": queue.rawValue, "unsettled": "\(consumer.unsettledCount)"])
    }

    var isConnected: Bool { consumer.isConnected }

    /// Deliveries handed to this worker and not yet begun.
    var waitingCount: Int {
        condition.lock(); defer { condition.unlock() }
        return pending.count
    }

    /// True once a stop began: held messages go back to the queue instead of waiting out an outage.
    var isDraining: Bool {
        condition.lock(); defer { condition.unlock() }
        return draining
    }

    private func enqueue(_ delivery: any BrokerDelivery) {
        let now = ProcessInfo.processInfo.systemUptime
        condition.lock()
        pending.append(delivery)
        arrivals.append(now)
        pendingItems += Self.items(delivery)
        condition.signal()
        condition.unlock()
    }

    private func workLoop() {
        while true {
            condition.lock()
            while let wait = lingerLeft(), !stopping {
                if wait.isInfinite { condition.wait() } else { _ = condition.wait(until: Date().addingTimeInterval(wait)) }
            }
            if stopping && pending.isEmpty { condition.unlock(); return }
            let batch = takeBatch()
            busy += 1
            condition.unlock()
            let started = Date()
            handle(batch)
            condition.lock()
            busy -= 1
            condition.broadcast()
            condition.unlock()
            if let gate {
                let paused = gate.yield(afterBusy: Date().timeIntervalSince(started)) { self.isDraining }
                if paused > 0 {
                    context.metrics.increment("buzzkit_bulk_yield_seconds_total", ["queue": queue.rawValue], by: paused,
                                              help: "Seconds bulk consumers paused because interactive work was waiting")
                }
            }
        }
    }

    /// Handles every delivery handed over so far, batch by batch, on the caller's thread (a
    /// worker with no threads, as the in-memory pipeline runs it). Returns how many it handled.
    @discardableResult
    func processPending() -> Int {
        var handled = 0
        while true {
            condition.lock()
            let batch = takeBatch()
            condition.unlock()
            if batch.isEmpty { return handled }
            handle(batch)
            handled += batch.count
        }
    }

    /// How much longer a worker thread waits before it takes a batch: infinity while nothing
    /// waits, nil once a full batch waits, the oldest message has waited ``Settings/linger``,
    /// or the worker drains. Called with the condition locked.
    private func lingerLeft() -> TimeInterval? {
        guard let oldest = arrivals.first else { return .infinity }
        guard settings.linger > 0, !draining, pendingItems < settings.maxBatch else { return nil }
        let left = oldest + settings.linger - ProcessInfo.processInfo.systemUptime
        return left > 0 ? left : nil
    }

    /// Up to maxBatch messages from the front of `pending`, a packed delivery counting as the
    /// messages it carries. Called with the condition locked.
    private func takeBatch() -> [any BrokerDelivery] {
        var count = 0, items = 0
        for delivery in pending {
            let carried = Self.items(delivery)
            if count > 0 && items + carried > settings.maxBatch { break }
            count += 1
            items += carried
            if count == settings.maxBatch { break }
        }
        let batch = Array(pending.prefix(count))
        pending.removeFirst(batch.count)
        arrivals.removeFirst(batch.count)
        pendingItems -= items
        return batch
    }

    /// The messages a delivery carries (a packed one says how many in its header).
    private static func items(_ delivery: any BrokerDelivery) -> Int { itemsCarried(headers: delivery.headers) }

    /// The `x-buzzkit-items` count, which only sizes batches, clamped to 1…100,000: a publisher
    /// may set any header, and no value (negative, `Int64.max`) may overflow the sums of counts.
    static func itemsCarried(headers: [String: AMQPFieldValue]) -> Int {
        Int(min(max(headers[Topology.itemsHeader]?.intValue ?? 1, 1), 100_000))
    }
}
