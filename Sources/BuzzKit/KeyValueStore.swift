import Foundation

/// Where an SDK instance persists its state (event queue, plan book, registration): a small
/// synchronous key–value store of `Data` blobs.
///
/// Implementations must be thread-safe and write each value atomically, so a crash leaves
/// either the old or the new value. Give every SDK instance its own store.
public protocol KeyValueStore: Sendable {
    /// The value stored under `key`, or `nil`.
    func data(forKey key: String) throws -> Data?
    /// Stores `data` under `key`; `nil` removes the key.
    func setData(_ data: Data?, forKey key: String) throws
}
