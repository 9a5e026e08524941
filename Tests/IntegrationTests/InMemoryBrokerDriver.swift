import BuzzServer
import BuzzServerTesting

/// The in-memory ``Broker`` on a topology of its own: its deliveries are handed over when the
/// test plays the queue's consumer.
final class InMemoryBrokerDriver: BrokerDriver {
    let memory: InMemoryBroker
    var broker: any Broker { memory }
    var topology: Topology { memory.topology }

    init() { memory = InMemoryBroker(topology: Topology(prefix: TestServices.uniqueName("mem") + ".")) }

    func play(_ queue: Topology.Queue) { memory.deliverReady(queue) }

    func close() {}
}
