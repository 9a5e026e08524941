import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The pipeline's storage port. Everything a worker changes for one message happens inside
/// one ``transaction(_:)``: it commits together (state, acknowledgments, outbox rows, timers)
/// or not at all. ``PostgresStore`` is the real one; ``InMemoryStore`` serves unit tests.
public protocol Store: Sendable {
    /// Runs `body` in a transaction; a thrown error rolls everything back.
    func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
}

/// The operations available inside a transaction, by concern: ``DirectoryQueries``,
/// ``RunRows``, ``WindowFacts``, ``DeliveryRows`` and ``OutboxRows``. A stage takes the whole
/// transaction; the parts are there to be read one at a time.
public protocol StoreTransaction: DirectoryQueries, RunRows, WindowFacts, DeliveryRows, OutboxRows {}
