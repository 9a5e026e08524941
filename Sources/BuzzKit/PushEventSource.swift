/// The platform's stream of push events (remote notifications, taps, device tokens). With
/// ``Configuration/automaticPushHandling`` on, ``BuzzKit/configure(_:ports:)`` attaches the
/// client synchronously, before it returns, so a push that launched the app reaches it.
public protocol PushEventSource: Sendable {
    /// Routes events to `handler` from now on (held weakly), replacing any earlier handler.
    func attach(_ handler: any PushEventHandling)
    /// Stops routing events to `handler` (an instance shutting down after a newer one
    /// attached leaves the newer one in place).
    func detach(_ handler: any PushEventHandling)
}
