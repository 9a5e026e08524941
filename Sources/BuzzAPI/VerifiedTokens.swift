import Foundation

/// Subscriber tokens whose HMAC this process has checked against a subscriber, until they
/// expire.
///
/// The rate limit of a device request is decided from its headers, before its body (which
/// names the subscriber the token must match) is read. A token seen verified before draws on
/// its own bucket; any other draws on its tenant's shared bucket for unverified device
/// requests (``RateLimits/unverifiedDevicePerSecond``). So made-up tokens, each of which would
/// otherwise get a fresh bucket of its own, are limited together, while a real phone is
/// limited alone from its second request on.
final class VerifiedTokens: @unchecked Sendable {
    /// The most tokens remembered; past it expired ones are dropped, then the whole set.
    let capacity: Int
    private let lock = NSLock()
    private var until: [String: Double] = [:]

    init(capacity: Int = 500_000) { self.capacity = capacity }

    /// Whether `mac` of `tenantId` was verified and has not expired at `now`.
    func contains(tenantId: String, mac: String, now: Date) -> Bool {
        let key = tenantId + "\u{0}" + mac.lowercased()
        return lock.withLock { (until[key] ?? 0) > now.timeIntervalSince1970 }
    }

    /// Remembers `mac` of `tenantId` as verified until `expiresAt` (unix seconds).
    func remember(tenantId: String, mac: String, expiresAt: Int, now: Date) {
        let key = tenantId + "\u{0}" + mac.lowercased()
        let nowSeconds = now.timeIntervalSince1970
        lock.withLock {
            guard until[key] == nil else { return }
            if until.count >= capacity {
                until = until.filter { $0.value > nowSeconds }
                if until.count >= capacity { until.removeAll(keepingCapacity: true) }
            }
            until[key] = Double(expiresAt)
        }
    }
}
