import Foundation

/// The persisted state of the device registration: what should be registered and what the
/// server last accepted, so a restart re-registers only after a change.
struct RegistrationState: Sendable, Hashable, Codable {
    /// The registration the device wants (its current token, topic and environment).
    var desired: PushRegistration?
    /// The registration the server last accepted.
    var registered: PushRegistration?
    /// The subscriber it was accepted for.
    var registeredSubscriberId: String?
    /// The subscriber who signed out on this phone while the server has not yet confirmed the
    /// token for the one signed in now. Until it does, the server may still send that
    /// person's plans here, so plan pushes are refused (the new person's plans come with the
    /// sync that follows the confirmation).
    var previousSubscriberId: String?
    /// When the server last confirmed the token for a new subscriber on this phone. A plan
    /// push for the previous person may still be on its way after that (dispatched before the
    /// token moved, or kept by APNs while the phone was offline), so a plan that arrives
    /// while a sync is running is checked by one more sync.
    var switchedAt: Date?

    /// Whether `desired` still has to be sent for `subscriberId`.
    func needsRegistration(subscriberId: String) -> Bool {
        guard let desired else { return false }
        return desired != registered || registeredSubscriberId != subscriberId
    }
}
