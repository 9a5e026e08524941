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

final class InMemoryBrokerDriver: BrokerDriver {
    let memory: InMemoryBroker
    var broker: any Broker { memory }
    var topology: Topology { memory.topology }

    init() { memory = InMemoryBroker(topology: Topology(prefix: TestServices.uniqueName("mem") + ".")) }

    func play(_ queue: Topology.Queue) { memory.deliverReady(queue) }

    func close() {}
}

/// ``AMQPBroker`` on queues and exchanges of a unique prefix, deleted at the end.
final class RabbitMQBrokerDriver: BrokerDriver {
    let topology: Topology
    let amqp: AMQPBroker
    var broker: any Broker { amqp }

    init() throws {
        let topology = Topology(prefix: TestServices.uniqueName("broker") + ".")
        self.topology = topology
        let setup = try AMQPConnection(url: TestServices.amqpURL)
        try topology.declare(on: setup)
        setup.close()
        amqp = AMQPBroker(publisher: AMQPPublisher(.init(url: TestServices.amqpURL, onConnect: { try topology.declare(on: $0) })),
                          endpoints: TestServices.amqp, topology: topology)
    }

    func play(_ queue: Topology.Queue) {}

    func close() {
        amqp.close(timeout: 5)
        if let connection = try? AMQPConnection(url: TestServices.amqpURL) {
            try? topology.delete(on: connection)
            connection.close()
        }
    }
}

/// What a subscription was handed, kept for the test to look at and settle.
final class DeliveryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var deliveries: [any BrokerDelivery] = []

    func add(_ delivery: any BrokerDelivery) { lock.withLock { deliveries.append(delivery) } }

    var all: [any BrokerDelivery] { lock.withLock { deliveries } }
}
