import AMQPClient
import Foundation
import PostgresClient

extension ServerError {
    /// What to do about any failure, the one rule for the workers and the API:
    /// - a ``ServerError`` says so itself;
    /// - PostgreSQL or RabbitMQ unreachable, the pool exhausted, a closed connection, or a
    ///   serialization conflict or deadlock: an outage (hold and retry; the API answers `503`);
    /// - a value PostgreSQL refuses (SQLSTATE class 22: NUL, a number out of range, a string
    ///   too long) or an integrity violation the code did not expect (class 23): permanent for
    ///   that one message (retrying the same bytes cannot help);
    /// - anything else: retried as it is.
    public static func outcome(of error: Error) -> Outcome {
        if let server = error as? ServerError { return server.outcome }
        if let pg = error as? PostgresError {
            if pg.isConnectionProblem || pg.code == .poolTimeout || pg.code == .closed || pg.isRetryableConflict { return .outage }
            if let state = pg.sqlState, state.hasPrefix("22") || state.hasPrefix("23") { return .permanent }
            return .retry
        }
        if let amqp = error as? AMQPError { return amqp.isConnectionProblem || amqp.code == .closed ? .outage : .retry }
        return .retry
    }

    /// Whether `error` means a dependency is down (see ``outcome(of:)``).
    public static func isOutage(_ error: Error) -> Bool { outcome(of: error) == .outage }
}
