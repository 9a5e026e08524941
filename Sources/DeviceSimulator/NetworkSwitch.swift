import Foundation

/// A phone's connectivity, shared by every launch of its app (the SDK's requests) and by
/// APNs (see ``APNsMailbox``).
final class NetworkSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var online = true

    var isOnline: Bool {
        lock.lock(); defer { lock.unlock() }
        return online
    }

    func set(online isOnline: Bool) {
        lock.lock(); online = isOnline; lock.unlock()
    }

    /// How long a request takes to reach the server (a slow network: one bar in a basement).
    var uplinkDelay: TimeInterval {
        get { lock.lock(); defer { lock.unlock() }; return delay }
        set { lock.lock(); delay = newValue; lock.unlock() }
    }
    private var delay: TimeInterval = 0
}
