import Foundation
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// An in-memory notification center with iOS's daemon's slowness and the SDK's use of it made
/// visible: each `add` can take `addStall` seconds (iOS's center under load), removals can be
/// held at a chosen moment (``holdRemovals()``), and the reads the SDK makes are counted (each
/// a round trip to the daemon on iOS).
final class InstrumentedCenter: NotificationScheduling, @unchecked Sendable {
    /// How often each kind of read was made since the last ``resetCounts()``.
    struct Reads: Sendable {
        var pending = 0
        var authorization = 0
        var categories = 0
    }

    private struct State {
        var reads = Reads()
        var adds = 0
        var holdingRemovals = false
        var heldRemovals: [CheckedContinuation<Void, Never>] = []
        var removalsHeld = 0
    }

    private let inner: InMemoryNotificationCenter
    private let addStall: TimeInterval
    private let state = Locked(State())

    init(wrapping inner: InMemoryNotificationCenter, addStall: TimeInterval = 0) {
        self.inner = inner
        self.addStall = addStall
    }

    /// How many adds have begun.
    var addsBegun: Int { state.withLock { $0.adds } }
    /// The reads counted so far.
    var reads: Reads { state.withLock { $0.reads } }
    func resetCounts() { state.withLock { $0.reads = Reads() } }

    /// How many removals have waited.
    var heldRemovals: Int { state.withLock { $0.removalsHeld } }
    /// Removals from now on wait until ``releaseRemovals()``.
    func holdRemovals() { state.withLock { $0.holdingRemovals = true } }
    func releaseRemovals() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holdingRemovals = false
            defer { state.heldRemovals = [] }
            return state.heldRemovals
        }
        for waiter in waiting { waiter.resume() }
    }

    func add(_ request: NotificationRequest) async throws {
        state.withLock { $0.adds += 1 }
        if addStall > 0 { try? await Task.sleep(nanoseconds: UInt64(addStall * 1e9)) }
        try await inner.add(request)
    }

    func removePendingRequests(withIdentifiers ids: [String]) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state -> Bool in
                guard state.holdingRemovals else { return false }
                state.heldRemovals.append(continuation)
                state.removalsHeld += 1
                return true
            }
            if !wait { continuation.resume() }
        }
        await inner.removePendingRequests(withIdentifiers: ids)
    }

    func pendingRequests() async -> [NotificationRequest] {
        state.withLock { $0.reads.pending += 1 }
        return await inner.pendingRequests()
    }

    func authorizationStatus() async -> NotificationAuthorization {
        state.withLock { $0.reads.authorization += 1 }
        return await inner.authorizationStatus()
    }

    func registeredCategoryIds() async -> Set<String> {
        state.withLock { $0.reads.categories += 1 }
        return await inner.registeredCategoryIds()
    }

    func deliveredNotifications() async -> [DeliveredNotification] { await inner.deliveredNotifications() }
    func removeDeliveredNotifications(withIdentifiers ids: [String]) async { await inner.removeDeliveredNotifications(withIdentifiers: ids) }
    func requestAuthorization() async throws -> NotificationAuthorization { try await inner.requestAuthorization() }
    func registerCategories(_ categories: [NotificationCategory]) async { await inner.registerCategories(categories) }
}
