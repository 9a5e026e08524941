import Foundation

/// Consumes one queue on a dedicated thread with a prefetch window and manual acks.
///
/// The handler runs on the consumer thread and must return quickly: hand the delivery to a
/// worker and settle it later from any thread. After a broker restart or dropped connection
/// the consumer reconnects, runs `onConnect` (topology) again and resumes; deliveries from
/// the old connection are redelivered by the broker, so settling them is ignored.
public final class AMQPConsumer: @unchecked Sendable {
    /// Consumer settings.
    public struct Configuration: Sendable {
        /// The node, or the cluster's nodes (the consumer moves to another when its node dies).
        public var endpoints: AMQPEndpoints
        public var queue: String
        /// Most unacknowledged deliveries the broker sends at once.
        public var prefetch: UInt16
        public var consumerTag: String
        /// Called on each (re)connect before consuming, e.g. to declare the topology.
        public var onConnect: (@Sendable (AMQPConnection) throws -> Void)?

        public init(endpoints: AMQPEndpoints, queue: String, prefetch: UInt16 = 100, consumerTag: String? = nil,
                    onConnect: (@Sendable (AMQPConnection) throws -> Void)? = nil) {
            self.endpoints = endpoints
            self.queue = queue
            self.prefetch = prefetch
            self.consumerTag = consumerTag ?? "buzzkit-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
            self.onConnect = onConnect
        }

        /// One node.
        public init(url: AMQPURL, queue: String, prefetch: UInt16 = 100, consumerTag: String? = nil,
                    onConnect: (@Sendable (AMQPConnection) throws -> Void)? = nil) {
            self.init(endpoints: AMQPEndpoints(url), queue: queue, prefetch: prefetch, consumerTag: consumerTag, onConnect: onConnect)
        }
    }

    enum Settlement: Equatable {
        case ack
        case nack(requeue: Bool)
        case reject(requeue: Bool)
    }

    public let configuration: Configuration
    let handler: @Sendable (AMQPDelivery) -> Void
    let lock = NSLock()
    let waker = AMQPWaker()
    var settlements: [(tag: UInt64, outcome: Settlement, generation: Int)] = []
    var inFlight = 0
    /// Set by ``stop(grace:)``: close once everything handed out is settled (or the deadline).
    var stopRequested = false
    var stopDeadline = Date.distantFuture
    /// Set by ``cancel(timeout:)`` or ``stop(grace:)``: no new deliveries wanted.
    var cancelRequested = false
    /// The broker confirmed the cancel: no delivery will follow.
    var cancelConfirmedFlag = false
    let cancelCondition = NSCondition()
    var connectedFlag = false
    /// Called with each connection error (for logs and metrics).
    public var onError: (@Sendable (AMQPError) -> Void)?
    private var thread: Thread?
    let finished = DispatchSemaphore(value: 0)
    private var started = false

    public init(_ configuration: Configuration, handler: @escaping @Sendable (AMQPDelivery) -> Void) {
        self.configuration = configuration
        self.handler = handler
    }

    /// Starts the consumer thread.
    public func start() {
        lock.lock()
        guard !started else { lock.unlock(); return }
        started = true
        lock.unlock()
        let thread = Thread { [self] in self.runLoop() }
        thread.name = "buzzkit.amqp.consumer.\(configuration.queue)"
        self.thread = thread
        thread.start()
    }

    /// True while consuming on an open connection.
    public var isConnected: Bool {
        lock.lock(); defer { lock.unlock() }
        return connectedFlag
    }

    /// Deliveries handed out and not yet settled.
    public var unsettledCount: Int {
        lock.lock(); defer { lock.unlock() }
        return inFlight
    }

    /// Cancels the subscription and waits (up to `timeout`) for the broker's confirmation;
    /// after it returns true no delivery follows. Deliveries handed out keep their acks flowing.
    @discardableResult
    public func cancel(timeout: TimeInterval) -> Bool {
        lock.lock()
        cancelRequested = true
        let running = started
        lock.unlock()
        waker.wake()
        guard running else { return true }
        let deadline = Date().addingTimeInterval(timeout)
        cancelCondition.lock()
        defer { cancelCondition.unlock() }
        while !cancelConfirmedFlag {
            if !cancelCondition.wait(until: deadline) { return cancelConfirmedFlag }
        }
        return true
    }

    /// Graceful stop: cancels the subscription (no new deliveries), waits up to `grace`
    /// seconds for handed-out deliveries to be settled and sends their acks, then closes.
    /// Whatever is still unsettled after the grace period goes back to the queue.
    public func stop(grace: TimeInterval = 10) {
        lock.lock()
        let wasStarted = started
        let already = stopRequested
        stopRequested = true
        cancelRequested = true
        stopDeadline = Date().addingTimeInterval(grace)
        lock.unlock()
        waker.wake()
        if wasStarted && !already { finished.wait() }
    }

    func confirmCancel() {
        cancelCondition.lock()
        cancelConfirmedFlag = true
        cancelCondition.broadcast()
        cancelCondition.unlock()
    }

    func enqueueSettlement(_ tag: UInt64, _ outcome: Settlement, generation: Int) {
        lock.lock()
        let wasEmpty = settlements.isEmpty
        settlements.append((tag, outcome, generation))
        lock.unlock()
        // The consumer thread flushes all settlements on every turn: only the first one queued
        // by another thread needs to wake it.
        if wasEmpty && !Thread.current.isEqual(thread) { waker.wake() }
    }
}
