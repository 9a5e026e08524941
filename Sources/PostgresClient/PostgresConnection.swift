import CLibPQ
import Foundation

/// One libpq connection. Blocking: use it from a dedicated thread (see ``PostgresPool``),
/// never from the Swift concurrency pool. Not thread-safe; one user at a time.
public final class PostgresConnection {
    var handle: OpaquePointer?
    /// Prepared statements by SQL text; names are `bk_<n>`.
    var prepared: [String: String] = [:]
    var inTransaction = false
    /// Inside ``transaction(_:)`` until its first statement, which carries the `BEGIN`.
    var beginPending = false
    /// Set when the server stopped being the primary under this connection (a failover
    /// demoted it): the pool drops the connection and the next one finds the new primary.
    var retired = false
    /// When the connection was last handed out or used.
    var lastUsed = Date()
    static let maxPreparedStatements = 512

    /// Connects with a `postgres://user:pass@host:port/db?…` URL or a libpq key/value string.
    public init(url: String, applicationName: String = "buzzkit") throws {
        var conninfo = url
        if !conninfo.contains("connect_timeout") {
            conninfo += conninfo.contains("://") ? (conninfo.contains("?") ? "&" : "?") + "connect_timeout=5" : " connect_timeout=5"
        }
        handle = PQconnectdb(conninfo)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
            if let handle { PQfinish(handle) }
            self.handle = nil
            throw PostgresError(.connectionFailed, "cannot connect to PostgreSQL: \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        _ = try execute(PostgresQuery(unsafeSQL: "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; SET client_min_messages = warning; SET application_name = '\(applicationName.filter { $0.isLetter || $0.isNumber || $0 == "-" })'"))
    }

    deinit { close() }

    /// Closes the connection. Further calls throw `.closed`.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// False once the server closed the connection or a call found it broken.
    public var isHealthy: Bool {
        guard let handle, !retired else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether `text` holds a NUL byte (memchr over its UTF-8: binds can be hundreds of
    /// kilobytes, a batch of run states).
    static func containsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(base, 0, bytes.count) != nil
        }
    }

    /// Runs a statement and returns its rows.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        // libpq takes C strings: a NUL would silently cut the value, so it is refused.
        if let index = query.binds.firstIndex(where: { $0?.containsNUL ?? false }) {
            throw PostgresError(.invalidBind, "bound value $\(index + 1) contains NUL, which PostgreSQL text cannot hold; nothing was run",
                                statement: query.sql)
        }
        let handle = try liveHandle(query.sql)
        lastUsed = Date()
        let checked: OpaquePointer
        if query.binds.isEmpty && isMultiStatement(query.sql) {
            if beginPending {
                beginPending = false
                try execute("BEGIN")
            }
            checked = try check(PQexec(handle, query.sql), statement: query.sql)
        } else {
            let name = query.plansEachTime ? nil : try preparedName(for: query.sql, handle: handle)
            checked = beginPending ? try runBeginning(query, name: name, handle: handle)
                                   : try check(send(query, name: name, handle: handle), statement: query.sql)
        }
        defer { PQclear(checked) }
        return PostgresRows(result: checked, statement: query.sql)
    }

    /// Runs a statement and returns how many rows it changed.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try self.query(query).affectedRows
    }

    func liveHandle(_ statement: String?) throws -> OpaquePointer {
        guard let handle else { throw PostgresError(.closed, "the connection is closed", statement: statement) }
        return handle
    }

    /// Unparameterised text with several statements goes through the simple protocol.
    private func isMultiStatement(_ sql: String) -> Bool {
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let semicolon = trimmed.firstIndex(of: ";") else { return false }
        return trimmed.index(after: semicolon) != trimmed.endIndex
    }

    private func preparedName(for sql: String, handle: OpaquePointer) throws -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < Self.maxPreparedStatements else { return nil }
        let name = "bk_\(prepared.count + 1)"
        let result = PQprepare(handle, name, sql, 0, nil)
        PQclear(try check(result, statement: sql))
        prepared[sql] = name
        return name
    }
}

/// A statement's parameters as libpq takes them: values, their lengths and formats (1 for
/// binary), alive for the call.
struct PostgresParameters {
    let values: UnsafePointer<UnsafePointer<CChar>?>?
    let lengths: UnsafePointer<Int32>?
    let formats: UnsafePointer<Int32>?
}

/// Calls `body` with `binds` as libpq parameters: text as C strings (nil for NULL), binary
/// values as their bytes with lengths and format 1.
func withParameters<R>(_ binds: [PostgresBind?], _ body: (PostgresParameters) -> R) -> R {
    var owned: [UnsafeMutablePointer<CChar>?] = []
    owned.reserveCapacity(binds.count)
    var lengths = [Int32](repeating: 0, count: binds.count)
    var formats = [Int32](repeating: 0, count: binds.count)
    for (index, bind) in binds.enumerated() {
        switch bind {
        case nil:
            owned.append(nil)
        case .text(let text)?:
            owned.append(strdup(text))
        case .binary(let bytes)?:
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { copy.update(from: $0.baseAddress!, count: bytes.count) }
            }
            owned.append(copy)
            lengths[index] = Int32(bytes.count)
            formats[index] = 1
        }
    }
    defer {
        for (index, pointer) in owned.enumerated() {
            if formats[index] == 1 { pointer?.deallocate() } else { free(pointer) }
        }
    }
    let anyBinary = formats.contains(1)
    return owned.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)) { pointer in
            lengths.withUnsafeBufferPointer { lengths in
                formats.withUnsafeBufferPointer { formats in
                    body(PostgresParameters(values: binds.isEmpty ? nil : UnsafePointer(pointer),
                                            lengths: anyBinary ? lengths.baseAddress : nil,
                                            formats: anyBinary ? formats.baseAddress : nil))
                }
            }
        }
    }
}
