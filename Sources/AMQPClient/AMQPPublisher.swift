import Foundation

/// Publishes persistent messages with publisher confirms from its own thread.
///
/// Publishes are pipelined: callers hand messages over, the publisher thread writes them at
/// once and matches the broker's (possibly `multiple`) acks to the callers. Messages stay in
/// memory until confirmed; after a dropped connection or broker restart the publisher
/// reconnects and sends every unconfirmed message again, so duplicates are possible and loss
/// is not. Consumers must therefore be idempotent.
public final class AMQPPublisher: @unchecked Sendable {
    /// Publisher settings.
    public struct Configuration: Sendable {
        /// The node, or the cluster's nodes (the publisher moves to another when its node dies).
        public var endpoints: AMQPEndpoints
        /// How long a publish may wait for its confirm (including reconnects) before failing.
        public var confirmTimeout: TimeInterval
        /// Fail new publishes at once while the broker is known to be unreachable, instead of
        /// holding them until `confirmTimeout` (the HTTP API wants a quick 503).
        public var failFastWhenDisconnected: Bool
        /// Called on each (re)connect before publishing, e.g. to declare the topology.
        public var onConnect: (@Sendable (AMQPConnection) throws -> Void)?
        /// The publisher thread's name as `top -H` and `/proc/<pid>/task/*/comm` show it (Linux
        /// keeps 15 bytes: a longer name is not applied).
        public var threadName = "buzzkit.publish"

        public init(endpoints: AMQPEndpoints, confirmTimeout: TimeInterval = 30, failFastWhenDisconnected: Bool = false,
                    onConnect: (@Sendable (AMQPConnection) throws -> Void)? = nil) {
            self.endpoints = endpoints
            self.confirmTimeout = confirmTimeout
            self.failFastWhenDisconnected = failFastWhenDisconnected
            self.onConnect = onConnect
        }

        /// One node.
        public init(url: AMQPURL, confirmTimeout: TimeInterval = 30, failFastWhenDisconnected: Bool = false,
                    onConnect: (@Sendable (AMQPConnection) throws -> Void)? = nil) {
            self.init(endpoints: AMQPEndpoints(url), confirmTimeout: confirmTimeout, failFastWhenDisconnected: failFastWhenDisconnected,
                      onConnect: onConnect)
        }
    }

    typealias Completion = @Sendable (Result<Void, AMQPError>) -> Void

    final class Pending {
        let message: AMQPMessage
        let completion: Completion
        let deadline: Date
        var tag: UInt64 = 0
        var done = false
        init(message: AMQPMessage, completion: @escaping Completion, deadline: Date) {
            self.message = message
            self.completion = completion
            self.deadline = deadline
        }
    }

    public let configuration: Configuration
    let lock = NSLock()
    let waker = AMQPWaker()
    /// Handed over by callers, not yet written.
    var submitted: [Pending] = []
    var stopping = false
    var connectedFlag = false
    var lastConnectFailed = false
    /// Messages the broker confirmed (guarded by `lock`).
    var confirmedTotal: UInt64 = 0
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let thread = Thread { [unowned self] in self.runLoop() }
        thread.name = configuration.threadName
        self.thread = thread
        thread.start()
    }

    /// How many messages RabbitMQ has confirmed since the publisher started (a packed batch
    /// counts once: it is one broker message).
    public var confirmedCount: UInt64 {
        lock.lock(); defer { lock.unlock() }
        return confirmedTotal
    }

    /// True while the publisher holds an open connection.
    public var isConnected: Bool {
        lock.lock(); defer { lock.unlock() }
        return connectedFlag
    }

    /// Publishes and calls `completion` (on the publisher thread) once the broker confirmed it.
    /// A message over an AMQP limit (``AMQPMessage/limitProblem``) is refused at once with
    /// `invalidArgument`, and nothing else is disturbed.
    public func publish(_ message: AMQPMessage, completion: @escaping @Sendable (Result<Void, AMQPError>) -> Void) {
        if let problem = message.limitProblem {
            completion(.failure(AMQPError(.invalidArgument, problem + "; nothing was published", context: "publish to \(message.exchange)")))
            return
        }
        lock.lock()
        if stopping {
            lock.unlock()
            completion(.failure(AMQPError(.closed, "the publisher is stopped")))
            return
        }
        if configuration.failFastWhenDisconnected && !connectedFlag && lastConnectFailed {
            lock.unlock()
            completion(.failure(AMQPError(.connectionFailed, "RabbitMQ is unreachable at \(configuration.endpoints.redacted); nothing was published")))
            return
        }
        let wasEmpty = submitted.isEmpty
        submitted.append(Pending(message: message, completion: completion, deadline: Date().addingTimeInterval(configuration.confirmTimeout)))
        lock.unlock()
        // The publisher thread takes everything submitted at once, so one wake per batch is enough.
        if wasEmpty { waker.wake() }
    }

    /// Publishes and waits for the broker's confirm.
    public func publish(_ message: AMQPMessage) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            publish(message) { result in continuation.resume(with: result.mapError { $0 as Error }) }
        }
    }

    /// Publishes all `messages` (pipelined) and waits for every confirm. Blocking: call it from
    /// a thread of your own, not from async code. Throws the first failure.
    public func publishAndWait(_ messages: [AMQPMessage]) throws {
        guard !messages.isEmpty else { return }
        let group = DispatchGroup()
        let firstError = LockedBox<AMQPError?>(nil)
        for message in messages {
            group.enter()
            publish(message) { result in
                if case .failure(let error) = result { firstError.update { $0 = $0 ?? error } }
                group.leave()
            }
        }
        group.wait()
        if let error = firstError.value { throw error }
    }

    /// Publishes every message and waits for all confirms from async code.
    public func publishBatch(_ messages: [AMQPMessage]) async throws {
        guard !messages.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let remaining = LockedBox(messages.count)
            let firstError = LockedBox<AMQPError?>(nil)
            for message in messages {
                publish(message) { result in
                    if case .failure(let error) = result { firstError.update { $0 = $0 ?? error } }
                    let left = remaining.update { $0 -= 1; return $0 }
                    if left == 0 {
                        if let error = firstError.value { continuation.resume(throwing: error) } else { continuation.resume() }
                    }
                }
            }
        }
    }

    /// Stops taking publishes, waits up to `timeout` for outstanding confirms, then closes.
    public func close(timeout: TimeInterval = 10) {
        lock.lock()
        let alreadyStopping = stopping
        stopping = true
        drainDeadline = Date().addingTimeInterval(timeout)
        lock.unlock()
        waker.wake()
        if !alreadyStopping { finished.wait() }
    }

    var drainDeadline = Date.distantFuture

    deinit { close(timeout: 0) }

    func signalFinished() { finished.signal() }
}

/// A tiny lock-protected value for completion bookkeeping.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    @discardableResult
    func update<R>(_ body: (inout Value) -> R) -> R {
        lock.lock(); defer { lock.unlock() }
        return body(&stored)
    }
}
