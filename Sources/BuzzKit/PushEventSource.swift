/// The platform's stream of push events (remote notifications, taps, device tokens). With
/// ``Configuration/automaticPushHandling`` on, the client attaches itself at start; with it
/// off, the app forwards these events itself.
public protocol PushEventSource: Sendable {
    /// Routes events to `handler` from now on (held weakly), replacing any earlier handler.
    func attach(_ handler: any PushEventHandling) async
    /// Stops routing events.
    func detach() async
}
