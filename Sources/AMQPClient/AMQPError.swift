/// The one error type of `AMQPClient`: a code, context, and a message a person can act on.
public struct AMQPError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable, Equatable {
        /// The broker could not be reached, or login failed.
        case connectionFailed
        /// An open connection broke (broker restart, network, missed heartbeats).
        case connectionLost
        /// The broker closed the channel or connection with an AMQP reply code (`replyCode`).
        case brokerClosed
        /// The broker refused a publish (basic.nack).
        case nacked
        /// No confirm arrived in time.
        case timeout
        /// The client was stopped.
        case closed
        /// A URL or argument was wrong.
        case invalidArgument
        /// rabbitmq-c reported a library failure.
        case library
    }

    public var code: Code
    public var message: String
    /// The AMQP reply code for `.brokerClosed` (for example 404 NOT_FOUND, 406 PRECONDITION_FAILED).
    public var replyCode: Int?
    /// What was being done (for example `queue.declare trigger`).
    public var context: String?

    public init(_ code: Code, _ message: String, replyCode: Int? = nil, context: String? = nil) {
        self.code = code
        self.message = message
        self.replyCode = replyCode
        self.context = context
    }

    /// True when reconnecting may fix it.
    public var isConnectionProblem: Bool {
        switch code {
        case .connectionFailed, .connectionLost, .timeout: return true
        case .brokerClosed: return replyCode == 320 || replyCode == 541 || replyCode == 501 || replyCode == 504
        default: return false
        }
    }

    public var description: String {
        var text = "AMQPError.\(code.rawValue)"
        if let replyCode { text += " [\(replyCode)]" }
        if let context { text += " during \(context)" }
        return text + ": \(message)"
    }
}
