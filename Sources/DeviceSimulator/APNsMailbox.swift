import BuzzKitWire
import APNsStandIn
import Foundation

/// APNs' store-and-forward for one device (Apple: "If APNs attempts to deliver a notification
/// while the destination device is offline, APNs stores the notification for a limited period
/// of time… Only one notification per app is stored", and which one is not guaranteed).
///
/// While the device is offline, a push replaces the stored one or is discarded, with even
/// odds (any one of them may survive, not always the last). A push whose `apns-expiration` is
/// 0 is never stored; a stored push whose expiration has passed is dropped.
final class APNsMailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var connected = true
    private var stored: RecordedPush?
    private var discardedCount = 0
    private var expiredCount = 0
    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    var isConnected: Bool {
        lock.lock(); defer { lock.unlock() }
        return connected
    }

    /// Pushes APNs dropped: replaced in the one-per-app store, or expired.
    var dropped: (discarded: Int, expired: Int) {
        lock.lock(); defer { lock.unlock() }
        return (discardedCount, expiredCount)
    }

    /// A push for this device: returned when it is delivered now, `nil` when stored or dropped.
    func accept(_ push: RecordedPush) -> RecordedPush? {
        lock.lock(); defer { lock.unlock() }
        if connected { return push }
        if push.expiration == 0 {
            discardedCount += 1
            return nil
        }
        if stored == nil || Bool.random(using: &random) {
            if stored != nil { discardedCount += 1 }
            stored = push
        } else {
            discardedCount += 1
        }
        return nil
    }

    /// The device goes offline.
    func disconnect() {
        lock.lock(); connected = false; lock.unlock()
    }

    /// The device is back: returns the stored push, unless it expired.
    func reconnect(now: Date) -> RecordedPush? {
        lock.lock(); defer { lock.unlock() }
        connected = true
        guard let push = stored else { return nil }
        stored = nil
        if let expiration = push.expiration, expiration > 0, Double(expiration) < now.timeIntervalSince1970 {
            expiredCount += 1
            return nil
        }
        return push
    }
}
