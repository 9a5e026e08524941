import Foundation

/// A bounded pool of ``PostgresConnection``s.
///
/// Blocking calls (`withConnection`, `withTransaction`) are for dedicated worker threads; the
/// `async` variants hop to the pool's own dispatch queue so libpq never blocks the Swift
/// concurrency pool. Broken connections are dropped and replaced, so the pool recovers by
/// itself after a server restart.
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
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var closed = false

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
        condition.lock(); defer { condition.unlock() }
        return open
    }

    /// Closes idle connections and refuses new borrowers; borrowed ones close when returned.
    public func close() {
        condition.lock()
        closed = true
        let toClose = idle
        idle.removeAll()
        open -= toClose.count
        condition.broadcast()
        condition.unlock()
        toClose.forEach { $0.close() }
    }

    /// Seconds the pool fails at once after PostgreSQL refused a new connection, before it
    /// tries to connect again.
    static let unreachablePause: TimeInterval = 1
    /// Until when, and with which error, acquiring fails at once (guarded by `condition`).
    private var unreachableUntil = Date.distantPast
    private var unreachableError: PostgresError?

    private func acquire() throws -> PostgresConnection {
        let deadline = Date().addingTimeInterval(configuration.acquireTimeout)
        var lastError: Error?
        var backoff = 0.05
        condition.lock()
        while true {
            if closed {
                condition.unlock()
                throw PostgresError(.closed, "the connection pool is closed")
            }
            if let connection = idle.popLast() {
                condition.unlock()
                if connection.probeWithoutRoundTrip() { return connection }
                connection.close()
                condition.lock()
                open -= 1
                continue
            }
            if open < configuration.maxConnections {
                // PostgreSQL refused a connection a moment ago: fail at once rather than make
                // every caller wait out the acquire timeout (an API answers 503 now, a worker
                // holds its messages), and try again after the pause.
                if Date() < unreachableUntil, let unreachableError {
                    condition.unlock()
                    throw unreachableError
                }
                open += 1
                condition.unlock()
                do {
                    return try PostgresConnection(url: configuration.url, applicationName: configuration.applicationName)
                } catch {
                    lastError = error
                    condition.lock()
                    open -= 1
                    condition.signal()
                    if let refused = error as? PostgresError, refused.code == .connectionFailed {
                        unreachableUntil = Date().addingTimeInterval(Self.unreachablePause)
                        unreachableError = refused
                        condition.unlock()
                        throw refused
                    }
                    condition.unlock()
                    if Date().addingTimeInterval(backoff) >= deadline { throw error }
                    Thread.sleep(forTimeInterval: backoff)
                    backoff = min(backoff * 2, 1)
                    condition.lock()
                    continue
                }
            }
            if !condition.wait(until: deadline) {
                condition.unlock()
                if let lastError { throw lastError }
                throw PostgresError(.poolTimeout, "no PostgreSQL connection became free within \(configuration.acquireTimeout)s (pool of \(configuration.maxConnections)); raise the pool size or find the slow query")
            }
        }
    }

    private func release(_ connection: PostgresConnection) {
        let healthy = connection.isHealthy && !connection.inTransaction
        condition.lock()
        if healthy && !closed {
            idle.append(connection)
        } else {
            open -= 1
        }
        condition.signal()
        condition.unlock()
        if !healthy || closed { connection.close() }
    }
}
