import CLibPQ

extension PostgresConnection {
    /// Sends `BEGIN` and a transaction's first statement in one libpq pipeline, then a sync:
    /// one round trip where there were two. Every stage's transaction is a handful of batched
    /// statements, so its `BEGIN` alone was about a fifth of a window's round trips to
    /// PostgreSQL, each a send, a wake-up and a receive on both sides (issue 43).
    ///
    /// Returns the statement's result, checked. A failed `BEGIN` is reported as such (the
    /// statement then comes back aborted); a failed statement leaves the transaction open and
    /// aborted, as it would have without the pipeline, for the caller's `ROLLBACK`.
    func runBeginning(_ query: PostgresQuery, name: String?, handle: OpaquePointer) throws -> OpaquePointer {
        guard PQenterPipelineMode(handle) == 1 else {
            // Not idle (cannot happen between statements) or libpq refused: the plain way.
            beginPending = false
            try execute("BEGIN")
            return try check(send(query, name: name, handle: handle), statement: query.sql)
        }
        beginPending = false
        var sent = PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 0) == 1
        if sent {
            sent = withParameters(query.binds) { p in
                if let name { return PQsendQueryPrepared(handle, name, Int32(query.binds.count), p.values, p.lengths, p.formats, 0) }
                return PQsendQueryParams(handle, query.sql, Int32(query.binds.count), nil, p.values, p.lengths, p.formats, 0)
            } == 1
        }
        if sent { sent = PQpipelineSync(handle) == 1 }
        // BEGIN's result, a null, the statement's result, a null, then the sync. Two nulls in a
        // row, or one on a broken connection, mean nothing more is coming.
        var results: [OpaquePointer] = []
        var nulls = 0
        while sent {
            guard let result = PQgetResult(handle) else {
                nulls += 1
                if nulls > 1 || PQstatus(handle) != CONNECTION_OK { break }
                continue
            }
            nulls = 0
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            results.append(result)
        }
        let left = PQexitPipelineMode(handle) == 1
        defer { results.dropFirst(2).forEach { PQclear($0) } }
        guard sent, left, results.count >= 2 else {
            results.prefix(2).forEach { PQclear($0) }
            if PQstatus(handle) == CONNECTION_OK { retired = true }  // a state no later call should meet
            return try check(nil, statement: query.sql)
        }
        if PQresultStatus(results[0]) != PGRES_COMMAND_OK {
            PQclear(results[1])
            return try check(results[0], statement: "BEGIN")
        }
        PQclear(results[0])
        return try check(results[1], statement: query.sql)
    }

    /// Sends `query` outside a pipeline and waits for its result (nil: nothing came back).
    func send(_ query: PostgresQuery, name: String?, handle: OpaquePointer) -> OpaquePointer? {
        withParameters(query.binds) { p in
            if let name { return PQexecPrepared(handle, name, Int32(query.binds.count), p.values, p.lengths, p.formats, 0) }
            return PQexecParams(handle, query.sql, Int32(query.binds.count), nil, p.values, p.lengths, p.formats, 0)
        }
    }
}
