import BuzzKitWire
import Foundation

/// Holds the handler the platform's push events go to, and lets an event that arrives
/// before any handler is attached wait for one.
///
/// A silent push (or a tap) can launch the app: iOS calls
/// `application(_:didFinishLaunchingWithOptions:)` and then hands over the push. When the app
/// configures BuzzKit there, the handler is attached synchronously and the push goes
/// straight through; when it configures later (after reading its own session, say), the
/// push waits here up to ``waitLimit`` seconds instead of being answered `.noData` and lost.
public final class PushEventRelay: Sendable {
    private struct State {
        weak var handler: (any PushEventHandling)?
        var waiters: [UInt64: CheckedContinuation<(any PushEventHandling)?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Locked(State())
    /// How long an event waits for a handler, in seconds.
    public let waitLimit: TimeInterval

    /// A relay whose early events wait up to `waitLimit` seconds.
    public init(waitLimit: TimeInterval = 10) {
        self.waitLimit = waitLimit
    }

    /// Routes events to `handler` (held weakly) from now on, including the ones waiting.
    public func attach(_ handler: any PushEventHandling) {
        let waiting = state.withLock { state -> [CheckedContinuation<(any PushEventHandling)?, Never>] in
            state.handler = handler
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiting { waiter.resume(returning: handler) }
    }

    /// Stops routing events (to any handler).
    public func detach() {
        state.withLock { $0.handler = nil }
    }

    /// Stops routing events if they go to `handler`.
    public func detach(_ handler: any PushEventHandling) {
        state.withLock { state in
            if state.handler === handler { state.handler = nil }
        }
    }

    /// Whether a handler is attached.
    public var isAttached: Bool { state.withLock { $0.handler != nil } }

    /// The attached handler, or the first one attached within ``waitLimit``; `nil` after that.
    public func handler() async -> (any PushEventHandling)? {
        if let handler = state.withLock({ $0.handler }) { return handler }
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let limit = waitLimit
        let timeout = Task { [state] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, limit) * 1_000_000_000))
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
        let handler = await withCheckedContinuation { (continuation: CheckedContinuation<(any PushEventHandling)?, Never>) in
            let attached = state.withLock { state -> (any PushEventHandling)? in
                if let handler = state.handler { return handler }
                state.waiters[id] = continuation
                return nil
            }
            if let attached { continuation.resume(returning: attached) }
        }
        timeout.cancel()
        return handler
    }

    /// Delivers a remote notification that arrived at `receivedAt` (`nil`: now); `nil` when no
    /// handler came in time. The time waited for a handler counts against the wake's budget.
    public func deliverRemoteNotification(payload: [String: JSONValue], receivedAt: Date? = nil) async -> PushOutcome? {
        guard let handler = await handler() else { return nil }
        return await handler.handleRemoteNotification(payload: payload, receivedAt: receivedAt)
    }

    /// Delivers a tap; `false` when no handler came in time.
    @discardableResult
    public func open(userInfo: [String: JSONValue]) async -> Bool {
        guard let handler = await handler() else { return false }
        await handler.handleNotificationOpen(userInfo: userInfo)
        return true
    }

    /// Delivers a chosen button; `false` when no handler came in time.
    @discardableResult
    public func action(_ actionId: String, on request: NotificationRequest, receivedAt: Date? = nil) async -> Bool {
        guard let handler = await handler() else { return false }
        await handler.handleNotificationAction(actionId, on: request, receivedAt: receivedAt)
        return true
    }

    /// Delivers a new device token (hex); `false` when no handler came in time.
    @discardableResult
    public func updateDeviceToken(_ hexToken: String) async -> Bool {
        guard let handler = await handler() else { return false }
        await handler.handleDeviceToken(hexToken)
        return true
    }
}
