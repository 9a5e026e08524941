extension PostgresConnection {
    /// Runs `body` inside `BEGIN … COMMIT`. A thrown error rolls back and is rethrown.
    ///
    /// `BEGIN` is not a round trip of its own: it goes out in one pipeline with the body's first
    /// statement (``runBeginning(_:name:handle:)``). A body that runs no statement opens no
    /// transaction and commits nothing.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard !inTransaction else {
            throw PostgresError(.invalidArgument, "a transaction is already open on this connection; nested transactions are not supported")
        }
        inTransaction = true
        beginPending = true
        defer {
            inTransaction = false
            beginPending = false
        }
        let value: T
        do {
            value = try body(self)
        } catch {
            if !beginPending && isHealthy { _ = try? execute("ROLLBACK") }
            throw error
        }
        guard !beginPending else { return value }
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
