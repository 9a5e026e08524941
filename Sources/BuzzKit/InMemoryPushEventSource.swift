import BuzzKitWire

/// A simulated platform push channel: what the device simulator calls when its APNs
/// stand-in delivers to a phone, or when the person taps.
///
/// When no handler is attached (automatic push handling off), events are not delivered and
/// the methods return `nil`/`false`: the app is expected to forward them itself.
public actor InMemoryPushEventSource: PushEventSource {
    private weak var handler: (any PushEventHandling)?

    /// A source with no handler attached.
    public init() {}

    /// Routes events to `handler` (held weakly).
    public func attach(_ handler: any PushEventHandling) {
        self.handler = handler
    }

    /// Stops routing events.
    public func detach() {
        handler = nil
    }

    /// Whether a handler is attached.
    public var isAttached: Bool { handler != nil }

    /// Delivers a remote notification; `nil` when no handler is attached.
    public func deliverRemoteNotification(payload: [String: JSONValue]) async -> PushOutcome? {
        guard let handler else { return nil }
        return await handler.handleRemoteNotification(payload: payload)
    }

    /// Delivers a tap; `false` when no handler is attached.
    @discardableResult
    public func open(userInfo: [String: JSONValue]) async -> Bool {
        guard let handler else { return false }
        await handler.handleNotificationOpen(userInfo: userInfo)
        return true
    }

    /// Delivers a new device token (hex); `false` when no handler is attached.
    @discardableResult
    public func updateDeviceToken(_ hexToken: String) async -> Bool {
        guard let handler else { return false }
        await handler.handleDeviceToken(hexToken)
        return true
    }
}
