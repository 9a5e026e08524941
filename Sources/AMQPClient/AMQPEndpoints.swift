import Foundation

/// The RabbitMQ nodes a client may use: one URL, or every node of a cluster.
///
/// `BUZZKIT_AMQP_URL` takes a comma-separated list (`amqp://u:p@rmq-0:5672/%2f,amqp://u:p@rmq-1:5672/%2f`).
/// A client connects to the first node that answers, starting from a node of its own (so a
/// fleet of processes spreads over the cluster), and when its node dies it moves on to the
/// next one. Quorum queues keep their messages and their leader on the surviving nodes, so a
/// consumer that moved finds its queue there, and a publisher resends what the dead node had
/// not confirmed.
public struct AMQPEndpoints: Sendable, Equatable {
    /// The nodes, in the order given; never empty.
    public let urls: [AMQPURL]

    /// The given nodes (at least one).
    public init(_ urls: [AMQPURL]) {
        precondition(!urls.isEmpty, "AMQPEndpoints needs at least one URL")
        self.urls = urls
    }

    /// One node.
    public init(_ url: AMQPURL) {
        self.urls = [url]
    }

    /// Parses one `amqp://` URL or several separated by commas (spaces around them are ignored).
    public init(_ string: String) throws {
        let parts = string.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !parts.isEmpty else {
            throw AMQPError(.invalidArgument, "no RabbitMQ URL given (expected amqp://user:password@host:port/vhost, or several separated by commas)")
        }
        var urls: [AMQPURL] = []
        for part in parts {
            let url = try AMQPURL(part)
            if let first = urls.first, first.vhost != url.vhost || first.user != url.user {
                throw AMQPError(.invalidArgument, "the nodes of one RabbitMQ cluster must share user and vhost: \(first.redacted) and \(url.redacted) differ")
            }
            if !urls.contains(where: { $0.host == url.host && $0.port == url.port }) { urls.append(url) }
        }
        self.urls = urls
    }

    /// The nodes without passwords, for logs.
    public var redacted: String { urls.map(\.redacted).joined(separator: ",") }

    /// Where a client starts: a node picked from `seed` (e.g. the process id), so that the
    /// processes of a deployment spread over the nodes instead of all piling onto the first.
    public func startIndex(seed: Int) -> Int {
        urls.count == 1 ? 0 : abs(seed % urls.count)
    }

    /// Opens a connection to the first node that accepts one, trying the nodes in turn from
    /// `start`. Returns the connection and the index of its node; throws `connectionFailed`
    /// naming every node and why it refused when none does.
    public func connect(startingAt start: Int = 0) throws -> (connection: AMQPConnection, index: Int) {
        var reasons: [String] = []
        for offset in 0..<urls.count {
            let index = (start + offset) % urls.count
            do {
                return (try AMQPConnection(url: urls[index]), index)
            } catch let error as AMQPError where error.code == .connectionFailed || error.isConnectionProblem {
                reasons.append(error.message)
            }
        }
        if urls.count == 1, let only = reasons.first {
            throw AMQPError(.connectionFailed, only)
        }
        throw AMQPError(.connectionFailed, "no RabbitMQ node of \(urls.count) accepted a connection: " + reasons.joined(separator: "; "))
    }
}
