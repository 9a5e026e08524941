/// The one error type of `PostgresClient`: a code, the server's SQLSTATE when there is one,
/// a message a person can act on, and the failing statement (never its bind values).
public struct PostgresError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Equatable {
        /// The server could not be reached or refused the connection.
        case connectionFailed
        /// An open connection broke (server restart, network); the statement may not have run.
        case connectionLost
        /// The server rejected the statement; `sqlState` says why.
        case server
        /// A column could not be decoded into the requested Swift type.
        case decoding
        /// A value could not be sent as a parameter.
        case invalidBind
        /// No connection became free within the pool's acquire timeout.
        case poolTimeout
        /// The pool or connection was closed.
        case closed
        /// The URL or another argument was wrong.
        case invalidArgument
    }

    public var code: Code
    /// The five-character SQLSTATE (for example `23505` unique violation), for `.server` errors.
    public var sqlState: String?
    public var message: String
    /// The SQL text that failed, with `$n` placeholders and without values.
    public var statement: String?
    /// True when the connection broke while `COMMIT` was on its way: the transaction may or
    /// may not have been committed, so a caller must not tell its client "nothing changed".
    public var commitOutcomeUnknown = false

    public init(_ code: Code, _ message: String, sqlState: String? = nil, statement: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.statement = statement
    }

    /// True when the failure is a broken or unreachable server, which a retry on a new
    /// connection can fix.
    public var isConnectionProblem: Bool {
        switch code {
        case .connectionFailed, .connectionLost: return true
        case .server: return sqlState?.hasPrefix("08") == true || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03" || isReadOnlyServer
        default: return false
        }
    }

    /// SQLSTATE 25006: a write reached a server that is read-only, a standby or a primary that
    /// a failover demoted. The connection is retired; a new one (with
    /// `target_session_attrs=read-write`) finds the primary.
    public var isReadOnlyServer: Bool { sqlState == "25006" }

    /// SQLSTATE 23505: a unique constraint was violated.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// SQLSTATE 40001 / 40P01: serialization failure or deadlock; retry the transaction.
    public var isRetryableConflict: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        var text = "PostgresError.\(code.rawValue)"
        if let sqlState { text += " [\(sqlState)]" }
        text += ": \(message)"
        if let statement { text += " (statement: \(statement.prefix(500)))" }
        return text
    }
}
