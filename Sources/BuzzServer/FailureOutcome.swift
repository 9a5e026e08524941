import AMQPClient
import Foundation
import PostgresClient

extension ServerError {
    /// What to do about any failure, the one rule for the workers and the API:
    /// - a ``ServerError`` says so itself;
    /// - PostgreSQL or RabbitMQ unreachable, the pool exhausted, a closed connection, or a
    ///   serialization conflict or deadlock: an outage (hold and retry; the API answers `503`);
    /// - a value PostgreSQL refuses (``isRefusedValue(_:)``) or an integrity violation the code
    ///   did not expect (class 23): permanent for that one message (retrying the same bytes
    ///   cannot help; the API answers `400` for the first, `500` for the second);
    /// - anything else: retried as it is.
    public static func outcome(of error: Error) -> Outcome {
        if let server = error as? ServerError { return server.outcome }
        if let pg = error as? PostgresError {
            if pg.isConnectionProblem || pg.code == .poolTimeout || pg.code == .closed || pg.isRetryableConflict { return .outage }
            if isRefusedValue(pg) || pg.sqlState?.hasPrefix("23") == true { return .permanent }
            return .retry
        }
        if let amqp = error as? AMQPError { return amqp.isConnectionProblem || amqp.code == .closed ? .outage : .retry }
        return .retry
    }

    /// Whether PostgreSQL refused a value itself (SQLSTATE class 22: NUL, a number out of range,
    /// a string too long) or it could not be bound: the input's fault, not the server's (the
    /// API answers `400`).
    public static func isRefusedValue(_ error: PostgresError) -> Bool {
        error.sqlState?.hasPrefix("22") == true || error.code == .invalidBind
    }

    /// Whether `error` means a dependency is down (see ``outcome(of:)``).
    public static func isOutage(_ error: Error) -> Bool { outcome(of: error) == .outage }
}
