import BuzzServerCore
import PostgresClient

/// PostgreSQL's part of the one failure rule (``ServerError/outcome(of:)``): unreachable, the
/// pool exhausted, a closed connection, or a serialization conflict or deadlock is an outage;
/// a refused value or an unexpected integrity violation (class 23) is permanent; anything
/// else is retried.
extension PostgresError: ClassifiedFailure {
    public var failureOutcome: ServerError.Outcome {
        if isConnectionProblem || code == .poolTimeout || code == .closed || isRetryableConflict { return .outage }
        if ServerError.isRefusedValue(self) || sqlState?.hasPrefix("23") == true { return .permanent }
        return .retry
    }
}

extension ServerError {
    /// Whether PostgreSQL refused a value itself (SQLSTATE class 22: NUL, a number out of range,
    /// a string too long) or it could not be bound: the input's fault, not the server's (the
    /// API answers `400`).
    public static func isRefusedValue(_ error: PostgresError) -> Bool {
        error.sqlState?.hasPrefix("22") == true || error.code == .invalidBind
    }
}
