import Foundation

/// A client's place in its ``AMQPEndpoints``: where the next connection attempt starts.
///
/// After a connection is lost, the next attempt begins at the following node, so a client
/// leaves a dead node at once instead of waiting out its connect timeout first; a node that
/// refused is retried only after the others.
struct AMQPNodeCursor {
    let endpoints: AMQPEndpoints
    private(set) var index: Int

    init(_ endpoints: AMQPEndpoints) {
        self.endpoints = endpoints
        index = endpoints.startIndex(seed: Int(ProcessInfo.processInfo.processIdentifier) &+ Int.random(in: 0..<1024))
    }

    /// Connects, starting at the current node; the cursor then points at the node used.
    mutating func connect() throws -> AMQPConnection {
        let (connection, used) = try endpoints.connect(startingAt: index)
        index = used
        return connection
    }

    /// The connection to the current node was lost: start the next attempt at the following node.
    mutating func advance() {
        index = (index + 1) % endpoints.urls.count
    }

    /// The node the cursor points at.
    var current: AMQPURL { endpoints.urls[index] }
}
