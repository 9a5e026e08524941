import Foundation

/// An adapter's error that knows which ``ServerError/Outcome`` it is (PostgreSQL's in
/// `BuzzStore`, RabbitMQ's in `BuzzServer`), so the pipeline and the API classify failures by
/// one rule without importing the C clients.
public protocol ClassifiedFailure: Error {
    var failureOutcome: ServerError.Outcome { get }
}

extension ServerError {
    /// What to do about any failure, the one rule for the workers and the API:
    /// - a ``ServerError`` says so itself;
    /// - PostgreSQL or RabbitMQ unreachable, the pool exhausted, a closed connection, or a
    ///   serialization conflict or deadlock: an outage (hold and retry; the API answers `503`);
    /// - a value PostgreSQL refuses or an integrity violation the code did not expect
    ///   (class 23): permanent for that one message (retrying the same bytes cannot help; the
    ///   API answers `400` for the first, `500` for the second);
    /// - anything else: retried as it is.
    ///
    /// The adapters' errors say which through ``ClassifiedFailure``.
    public static func outcome(of error: Error) -> Outcome {
        if let server = error as? ServerError { return server.outcome }
        if let classified = error as? any ClassifiedFailure { return classified.failureOutcome }
        return .retry
    }

    /// Whether `error` means a dependency is down (see ``outcome(of:)``).
    public static func isOutage(_ error: Error) -> Bool { outcome(of: error) == .outage }
}
