import APNsStandIn
import Foundation

/// Hands pushes accepted by the APNs stand-in to the simulated phone that owns the token.
public final class PushRouter: @unchecked Sendable {
    private let lock = NSLock()
    private var phones: [String: SimulatedPhone] = [:]
    private var unknown = 0

    public init() {}

    func register(_ phone: SimulatedPhone) {
        lock.lock(); phones[phone.token] = phone; lock.unlock()
    }

    /// The stand-in's `onPush` hook.
    public func deliver(_ push: RecordedPush) {
        lock.lock()
        let phone = phones[push.deviceToken.lowercased()]
        if phone == nil { unknown += 1 }
        lock.unlock()
        guard let phone else { return }
        let payload = push.payload, silent = push.isSilent
        Task { await phone.receive(payload: payload, silent: silent) }
    }

    /// Pushes for tokens no phone owns (another run's devices).
    public var unknownPushes: Int {
        lock.lock(); defer { lock.unlock() }
        return unknown
    }
}
