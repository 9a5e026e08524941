import BuzzServer
import BuzzServerTesting
import Foundation

/// ``InMemoryStore``, set up through ``InMemoryDirectory``: the driver the unit tests of the
/// pipeline use.
final class InMemoryStoreDriver: StoreDriver {
    let memory = InMemoryStore()
    var store: any Store { memory }
    var outbox: any OutboxStore { InMemoryOutbox(store: memory) }
    var directory: any Directory { InMemoryDirectory(store: memory) }

    func opens(tenantId: String) throws -> Int { memory.withState { $0.opens.filter { $0.tenantId == tenantId }.count } }

    func close() {}
}
