import AMQPClient
import BuzzServer
import Foundation

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
