import AMQPClient
import BuzzServerCore

/// RabbitMQ's part of the one failure rule (``ServerError/outcome(of:)``): the broker
/// unreachable or the connection closed is an outage; anything else is retried.
extension AMQPError: ClassifiedFailure {
    public var failureOutcome: ServerError.Outcome { isConnectionProblem || code == .closed ? .outage : .retry }
}
