import Foundation

/// A store in memory. Hand the same instance to a new ``BuzzKitClient`` to simulate an app
/// restart; hand a fresh one to simulate a reinstall.
public final class InMemoryKeyValueStore: KeyValueStore {
    private let values: Locked<[String: Data]>

    /// An empty store, or one holding `values`.
    public init(_ values: [String: Data] = [:]) {
        self.values = Locked(values)
    }

    /// The value under `key`.
    public func data(forKey key: String) throws -> Data? {
        values.withLock { $0[key] }
    }

    /// Stores or removes the value under `key`.
    public func setData(_ data: Data?, forKey key: String) throws {
        values.withLock { $0[key] = data }
    }

    /// Every stored value by key.
    public var snapshot: [String: Data] {
        values.withLock { $0 }
    }

    /// Every stored key, sorted.
    public var keys: [String] {
        values.withLock { $0.keys.sorted() }
    }
}
