import Foundation

/// A bounded pool of ``PostgresConnection``s.
///
/// Its calls (`withConnection`, `withTransaction`) block: they are for dedicated threads,
/// never the Swift concurrency pool. Callers waiting for a connection are served in the order
/// they came (``PoolWaiter``). Broken connections are dropped and replaced, so the pool
/// recovers by itself after a server restart.
public final class PostgresPool: @unchecked Sendable {
    /// Pool settings.
    public struct Configuration: Sendable {
        public var url: String
        /// Most connections open at once.
        public var maxConnections: Int
        /// How long a caller waits for a free connection (and for the server to come back).
        public var acquireTimeout: TimeInterval
        public var applicationName: String

        public init(url: String, maxConnections: Int = 8, acquireTimeout: TimeInterval = 10, applicationName: String = "buzzkit") {
            self.url = url
            self.maxConnections = maxConnections
            self.acquireTimeout = acquireTimeout
            self.applicationName = applicationName
        }
    }

    public let configuration: Configuration
    private let lock = NSLock()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var closed = false
    /// Callers waiting for a connection, first come first served (guarded by `lock`).
    private var line: [PoolWaiter] = []

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    public convenience init(url: String, maxConnections: Int = 8) {
        self.init(Configuration(url: url, maxConnections: maxConnections))
    }

    /// Borrows a connection for the duration of `body` (blocking).
    @discardableResult
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try acquire()
        do {
            let value = try body(connection)
            release(connection)
            return value
        } catch {
            release(connection)
            throw error
        }
    }

    /// Runs `body` in a transaction on a borrowed connection (blocking).
    @discardableResult
    public func withTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { try $0.transaction(body) }
    }

    /// Connections open now (idle and borrowed).
    public var openConnections: Int {
        lock.lock(); defer { lock.unlock() }
        return open
    }

    /// Callers waiting in line for a connection now.
    public var waitingCallers: Int {
        lock.lock(); defer { lock.unlock() }
        return line.count
    }

    /// Closes idle connections and refuses new borrowers; borrowed ones close when returned.
    public func close() {
        lock.lock()
        closed = true
        let toClose = idle
        idle.removeAll()
        open -= toClose.count
        let waiting = line
        line.removeAll()
        lock.unlock()
        waiting.forEach { $0.wake.signal() }
        toClose.forEach { $0.close() }
    }

    /// Seconds the pool fails at once after PostgreSQL refused a new connection, before it
    /// tries to connect again.
    static let unreachablePause: TimeInterval = 1
    /// Until when, and with which error, acquiring fails at once (guarded by `lock`).
    private var unreachableUntil = Date.distantPast
    private var unreachableError: PostgresError?

    /// A connection for the caller: an idle one, a new one while the pool has room, else the
    /// next one given back, in the order callers came. A caller never takes a connection ahead
    /// of one already waiting: with a free-for-all, a thread that gave a connection back and
    /// asked again at once took it before the waiter it had woken ran, again and again.
    private func acquire() throws -> PostgresConnection {
        let deadline = Date().addingTimeInterval(configuration.acquireTimeout)
        var lastError: Error?
        var backoff = 0.05
        var slotReserved = false
        lock.lock()
        while true {
            if closed {
                if slotReserved { open -= 1 }
                lock.unlock()
                throw PostgresError(.closed, "the connection pool is closed")
            }
            if !slotReserved, line.isEmpty, let connection = idle.popLast() {
                if let alive = alive(connection) { return alive }
                continue
            }
            if slotReserved || (line.isEmpty && open < configuration.maxConnections) {
                // PostgreSQL refused a connection a moment ago: fail at once rather than make
                // every caller wait out the acquire timeout (an API answers 503 now, a worker
                // holds its messages), and try again after the pause.
                if Date() < unreachableUntil, let unreachableError {
                    if slotReserved { open -= 1; serveLine() }
                    lock.unlock()
                    throw unreachableError
                }
                if !slotReserved { open += 1 }
                slotReserved = false
                lock.unlock()
                do {
                    return try PostgresConnection(url: configuration.url, applicationName: configuration.applicationName)
                } catch {
                    lastError = error
                    lock.lock()
                    open -= 1
                    serveLine()
                    if let refused = error as? PostgresError, refused.code == .connectionFailed {
                        unreachableUntil = Date().addingTimeInterval(Self.unreachablePause)
                        unreachableError = refused
                        lock.unlock()
                        throw refused
                    }
                    lock.unlock()
                    if Date().addingTimeInterval(backoff) >= deadline { throw error }
                    Thread.sleep(forTimeInterval: backoff)
                    backoff = min(backoff * 2, 1)
                    lock.lock()
                    continue
                }
            }
            let waiter = PoolWaiter()
            line.append(waiter)
            lock.unlock()
            let woken = waiter.wait(until: .now() + max(0, deadline.timeIntervalSinceNow))
            lock.lock()
            if let connection = waiter.connection {
                if let alive = alive(connection) { return alive }
                continue
            }
            if waiter.mayOpen {
                slotReserved = true
                continue
            }
            if !woken {
                line.removeAll { $0 === waiter }
                lock.unlock()
                if let lastError { throw lastError }
                throw PostgresError(.poolTimeout, "no PostgreSQL connection became free within \(configuration.acquireTimeout)s (pool of \(configuration.maxConnections)); raise the pool size or find the slow query")
            }
        }
    }

    /// With `lock` held: `connection`, with the lock let go, if it still looks alive;
    /// else nil, with the connection closed, its slot given to the line and the lock held again.
    private func alive(_ connection: PostgresConnection) -> PostgresConnection? {
        lock.unlock()
        if connection.probeWithoutRoundTrip() { return connection }
        connection.close()
        lock.lock()
        open -= 1
        serveLine()
        return nil
    }

    /// With `lock` held: lets the first waiter open a connection in a slot that just
    /// became free (counted as open for it).
    private func serveLine() {
        guard !closed, open < configuration.maxConnections, !line.isEmpty else { return }
        let waiter = line.removeFirst()
        open += 1
        waiter.mayOpen = true
        waiter.wake.signal()
    }

    private func release(_ connection: PostgresConnection) {
        let healthy = connection.isHealthy && !connection.inTransaction
        lock.lock()
        if healthy && !closed {
            if line.isEmpty {
                idle.append(connection)
            } else {
                let waiter = line.removeFirst()
                waiter.connection = connection
                waiter.wake.signal()
            }
        } else {
            open -= 1
            serveLine()
        }
        lock.unlock()
        if !healthy || closed { connection.close() }
    }
}
