import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// At most this many pushes wait in the inbox; beyond it the oldest go (a plan among them
    /// comes back with the next sync, or its fallback shows it).
    static let inboxLimit = 200

    /// Keeps a push that a wake could not apply before it had to answer iOS (the gate stayed
    /// busy with the state changes queued ahead of it). It is persisted at once, so neither a
    /// suspension nor iOS ending the app loses it, and applied at the next entry point
    /// (``applyDeferredPushes()``, from the next tick), exactly as if it arrived then: a plan
    /// is scheduled and acknowledged once (its id makes a repeat a duplicate), a cancel removes
    /// what it names, a fallback's arrival withdraws the local copy.
    func deferPush(_ payload: [String: JSONValue]) -> PushOutcome {
        inbox.append(payload)
        if inbox.count > Self.inboxLimit { inbox.removeFirst(inbox.count - Self.inboxLimit) }
        save(inbox, StorageKey.inbox)
        report(.pushDeferred)
        return .newData
    }

    /// Applies the pushes earlier wakes deferred, oldest first (inside the gate).
    func applyDeferredPushes() async {
        guard !inbox.isEmpty else { return }
        let pushes = inbox
        inbox = []
        for payload in pushes {
            switch IncomingPush(payload: payload) {
            case .plan(let plan):
                _ = await scheduleFromPush(plan)
            case .cancel(let id):
                _ = await applyCancelPush(id)
            case .alert(let message):
                _ = await applyFallbackArrival(message)
            case .unrelated, .malformed:
                continue
            }
        }
        save(inbox, StorageKey.inbox)
    }
}
