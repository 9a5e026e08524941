import BuzzKitWire
@_spi(BuzzKitTesting) import BuzzKit
import Foundation

/// A simulated platform push channel: what the device simulator calls when its APNs
/// stand-in delivers to a phone, or when the person taps.
///
/// Events that arrive before a handler is attached wait for one up to the relay's limit
/// (a cold launch), then the methods return `nil`/`false`: with automatic push handling off
/// the app is expected to forward them itself.
public final class InMemoryPushEventSource: PushEventSource {
    /// The relay the events go through.
    public let relay: PushEventRelay

    /// A source with no handler attached; early events wait up to `waitLimit` seconds.
    public init(waitLimit: TimeInterval = 0) {
        relay = PushEventRelay(waitLimit: waitLimit)
    }

    /// Routes events to `handler` (held weakly).
    public func attach(_ handler: any PushEventHandling) {
        relay.attach(handler)
    }

    /// Stops routing events to `handler`.
    public func detach(_ handler: any PushEventHandling) {
        relay.detach(handler)
    }

    /// Whether a handler is attached.
    public var isAttached: Bool { relay.isAttached }

    /// Delivers a remote notification; `nil` when no handler is attached.
    public func deliverRemoteNotification(payload: [String: JSONValue]) async -> PushOutcome? {
        await relay.deliverRemoteNotification(payload: payload)
    }

    /// Delivers a tap; `false` when no handler is attached.
    @discardableResult
    public func open(userInfo: [String: JSONValue]) async -> Bool {
        await relay.open(userInfo: userInfo)
    }

    /// Delivers a new device token (hex); `false` when no handler is attached.
    @discardableResult
    public func updateDeviceToken(_ hexToken: String) async -> Bool {
        await relay.updateDeviceToken(hexToken)
    }
}
