import Foundation

/// Token buckets by key, thread-safe; time is a parameter. A bucket starts full (`burst`
/// tokens) and refills at `perSecond`. Memory stays bounded: past `maxKeys` buckets, the full
/// ones (idle long enough to have refilled) are dropped, and if that is not enough, all are.
final class TokenBuckets: @unchecked Sendable {
    private struct Bucket {
        var tokens: Double
        var at: Date
    }

    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    let maxKeys: Int

    init(maxKeys: Int = 100_000) {
        self.maxKeys = maxKeys
    }

    /// Takes one token from `key`'s bucket. Returns nil when it had one, else the seconds
    /// until it will (for `Retry-After`).
    func take(_ key: String, perSecond: Int, burst: Int, now: Date) -> TimeInterval? {
        let rate = Double(perSecond), capacity = Double(burst)
        lock.lock(); defer { lock.unlock() }
        var bucket = buckets[key] ?? Bucket(tokens: capacity, at: now)
        bucket.tokens = min(capacity, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * rate)
        bucket.at = now
        let allowed = bucket.tokens >= 1
        if allowed { bucket.tokens -= 1 }
        if buckets[key] == nil, buckets.count >= maxKeys { sweep(now: now, perSecond: rate, capacity: capacity) }
        buckets[key] = bucket
        return allowed ? nil : (1 - bucket.tokens) / rate
    }

    /// Takes up to `count` tokens from `key`'s bucket; returns how many it had.
    func take(_ key: String, upTo count: Int, perSecond: Int, burst: Int, now: Date) -> Int {
        let rate = Double(perSecond), capacity = Double(burst)
        lock.lock(); defer { lock.unlock() }
        var bucket = buckets[key] ?? Bucket(tokens: capacity, at: now)
        bucket.tokens = min(capacity, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * rate)
        bucket.at = now
        let granted = min(count, Int(bucket.tokens.rounded(.down)))
        bucket.tokens -= Double(granted)
        if buckets[key] == nil, buckets.count >= maxKeys { sweep(now: now, perSecond: rate, capacity: capacity) }
        buckets[key] = bucket
        return granted
    }

    private func sweep(now: Date, perSecond: Double, capacity: Double) {
        buckets = buckets.filter { $0.value.tokens + now.timeIntervalSince($0.value.at) * perSecond < capacity }
        if buckets.count >= maxKeys { buckets.removeAll(keepingCapacity: true) }
    }

    /// Whether `key`'s bucket has a token now, without taking it.
    /// Takes `count` tokens at once, or none: nil when taken, else the seconds until they
    /// would be there (a request of `count` events is accepted whole or refused whole).
    func takeAll(_ key: String, count: Int, perSecond: Int, burst: Int, now: Date) -> TimeInterval? {
        let rate = Double(perSecond), capacity = Double(burst)
        lock.lock(); defer { lock.unlock() }
        var bucket = buckets[key] ?? Bucket(tokens: capacity, at: now)
        bucket.tokens = min(capacity, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * rate)
        bucket.at = now
        let wanted = Double(min(count, burst))
        let allowed = bucket.tokens >= wanted
        if allowed { bucket.tokens -= wanted }
        if buckets[key] == nil, buckets.count >= maxKeys { sweep(now: now, perSecond: rate, capacity: capacity) }
        buckets[key] = bucket
        return allowed ? nil : (wanted - bucket.tokens) / rate
    }

    func hasToken(_ key: String, perSecond: Int, burst: Int, now: Date) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard let bucket = buckets[key] else { return burst >= 1 }
        return min(Double(burst), bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * Double(perSecond)) >= 1
    }

    var count: Int {
        lock.lock(); defer { lock.unlock() }
        return buckets.count
    }
}
