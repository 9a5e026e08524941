import APNsStandIn
import Foundation

/// Hands pushes accepted by the APNs stand-in to the simulated phone that owns the token,
/// and makes the stand-in answer 410 `Unregistered` for a token whose app was deleted.
public final class PushRouter: @unchecked Sendable {
    private let lock = NSLock()
    private var phones: [String: SimulatedPhone] = [:]
    private var unknown = 0
    /// The stand-in whose pushes this router delivers (set by ``StandInLoader``).
    public weak var standIn: APNsStandIn?

    public init() {}

    func register(_ phone: SimulatedPhone) {
        lock.lock(); phones[phone.token] = phone; lock.unlock()
        phone.onNewToken = { [weak self] phone, old, _ in self?.reinstalled(phone, oldToken: old) }
    }

    /// The app on `phone` was deleted and installed again: its old token is gone for good.
    private func reinstalled(_ phone: SimulatedPhone, oldToken: String) {
        lock.lock()
        phones[oldToken] = nil
        phones[phone.token] = phone
        lock.unlock()
        if let standIn {
            var plan = standIn.failures
            plan.set(.unregistered(since: Date()), forToken: oldToken)
            standIn.failures = plan
        }
    }

    /// The stand-in's `onPush` hook.
    public func deliver(_ push: RecordedPush) {
        lock.lock()
        let phone = phones[push.deviceToken.lowercased()]
        if phone == nil { unknown += 1 }
        lock.unlock()
        guard let phone else { return }
        // At the priority of the fleet's own tasks (`.high`: started from the main thread, see
        // `waitFor`), not at the `.medium` a task started on the stand-in's thread gets: a push
        // below the phones' scripts waits for all of them on the simulator's two threads (a
        // launch for a silent push, an alert iOS shows as it arrives; the report's hand-over
        // time is this process's delay, not the server's).
        Task(priority: .high) { await phone.deliver(push) }
    }

    /// Pushes for tokens no phone owns (another run's devices).
    public var unknownPushes: Int {
        lock.lock(); defer { lock.unlock() }
        return unknown
    }
}
