import AMQPClient
import BuzzServer
import BuzzServerTesting
import Foundation

/// One implementation of the ``Broker`` port on a topology of its own, for
/// ``BrokerConformanceTests``: RabbitMQ hands deliveries over on its consumer's thread, the
/// in-memory broker when the test plays its consumer (``play(_:)``).
protocol BrokerDriver {
    var broker: any Broker { get }
    var topology: Topology { get }
    /// Hands what is ready in `queue` to its subscription (a no-op where the broker does it itself).
    func play(_ queue: Topology.Queue)
    func close()
}
