extension PostgresConnection {
    /// Runs `body` inside `BEGIN … COMMIT`. A thrown error rolls back and is rethrown.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard !inTransaction else {
            throw PostgresError(.invalidArgument, "a transaction is already open on this connection; nested transactions are not supported")
        }
        try execute("BEGIN")
        inTransaction = true
        defer { inTransaction = false }
        let value: T
        do {
            value = try body(self)
        } catch {
            if isHealthy { _ = try? execute("ROLLBACK") }
            throw error
        }
        do {
            try execute("COMMIT")
        } catch var error as PostgresError {
            // No answer to COMMIT: the server may have committed before the connection broke.
            if error.isConnectionProblem { error.commitOutcomeUnknown = true }
            if isHealthy { _ = try? execute("ROLLBACK") }
            throw error
        }
        return value
    }
}
