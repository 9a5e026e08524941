import BuzzServer
import Foundation

/// Where the console reads and replays a tenant's dead letters (nil in ``APIRoutes``: none).
public protocol DeadLetterSource: Sendable {
    /// Up to `limit` of the tenant's dead letters in `queue`, oldest first (they stay).
    func list(_ queue: Topology.Queue, tenantId: String, limit: Int) throws -> [DeadLetters.Letter]
    /// Sends the tenant's dead letters of `queue` back where they first went; returns how many.
    func replay(_ queue: Topology.Queue, tenantId: String) throws -> Int
}

/// ``DeadLetters`` on the broker, replaying through the API's publisher (with confirms). One
/// list or replay at a time in each API process: each reads through up to
/// ``DeadLetters/scanLimit`` letters and holds the other tenants' meanwhile, so a tenant asking
/// again and again makes the others wait rather than piling up connections and held letters.
struct BrokerDeadLetters: DeadLetterSource {
    let letters: DeadLetters
    let broker: any Broker
    private let oneAtATime = NSLock()

    init(letters: DeadLetters, broker: any Broker) {
        self.letters = letters
        self.broker = broker
    }

    func list(_ queue: Topology.Queue, tenantId: String, limit: Int) throws -> [DeadLetters.Letter] {
        try oneAtATime.withLock { try letters.list(queue, tenantId: tenantId, limit: limit) }
    }

    func replay(_ queue: Topology.Queue, tenantId: String) throws -> Int {
        try oneAtATime.withLock { try letters.replay(queue, tenantId: tenantId, broker: broker) }
    }
}
