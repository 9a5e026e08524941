import Foundation

/// A small thread-safe map whose entries expire: what a process keeps of PostgreSQL's answers
/// for a few seconds (API keys, a tenant's cancelling event names) so its hot path asks
/// PostgreSQL once per entry and lifetime. Past ``maxEntries`` it starts again, so a flood of
/// distinct keys costs memory in proportion to the limit, not to the flood.
public final class ExpiringCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// What the cache holds for a key.
    public enum Lookup {
        /// Kept and still fresh.
        case fresh(Value)
        /// Kept, but past its time: valid once, to be asked again.
        case expired(Value)
        /// Not kept.
        case missing
    }

    /// Entries kept at most; past it the cache is emptied.
    public let maxEntries: Int
    private let lock = NSLock()
    private var entries: [Key: (value: Value, until: Date)] = [:]

    public init(maxEntries: Int) {
        self.maxEntries = maxEntries
    }

    /// What is kept for `key` at `now`.
    public func lookup(_ key: Key, now: Date) -> Lookup {
        guard let entry = lock.withLock({ entries[key] }) else { return .missing }
        return entry.until > now ? .fresh(entry.value) : .expired(entry.value)
    }

    /// The fresh value for `key`, or nil.
    public func fresh(_ key: Key, now: Date) -> Value? {
        if case .fresh(let value) = lookup(key, now: now) { return value }
        return nil
    }

    /// Keeps `value` for `key` until `until`.
    public func store(_ value: Value, for key: Key, until: Date) {
        lock.withLock {
            if entries.count >= maxEntries, entries[key] == nil { entries.removeAll() }
            entries[key] = (value, until)
        }
    }

    /// Forgets `key`.
    public func remove(_ key: Key) {
        lock.withLock { entries[key] = nil }
    }

    /// Forgets the entries whose value matches (nil: every entry).
    public func removeAll(where matches: ((Value) -> Bool)? = nil) {
        lock.withLock {
            if let matches { entries = entries.filter { !matches($0.value.value) } } else { entries.removeAll() }
        }
    }
}
