/// The persisted state of the device registration: what should be registered and what the
/// server last accepted, so a restart re-registers only after a change.
struct RegistrationState: Sendable, Hashable, Codable {
    /// The registration the device wants (its current token, topic and environment).
    var desired: PushRegistration?
    /// The registration the server last accepted.
    var registered: PushRegistration?
    /// The subscriber it was accepted for.
    var registeredSubscriberId: String?

    /// Whether `desired` still has to be sent for `subscriberId`.
    func needsRegistration(subscriberId: String) -> Bool {
        guard let desired else { return false }
        return desired != registered || registeredSubscriberId != subscriberId
    }
}
