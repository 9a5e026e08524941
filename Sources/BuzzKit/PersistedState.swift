import BuzzKitWire
import Foundation

/// Everything an SDK instance persists, read together from its store (and the subscriber token
/// from its secrets store, the Keychain on iOS).
///
/// A value that cannot be *read* at all (``BuzzKitError/Code/storageUnreadable``: on iOS, files
/// of a phone not unlocked since it restarted) is not the same as one that is missing: the
/// instance then must not start from empty state and save over the real one
/// (``BuzzKitClient`` skips every save until a later read succeeds).
struct PersistedState: Sendable {
    var queue = EventQueue()
    var book = PlanBook()
    var registration = RegistrationState()
    var pendingLogouts: [PendingLogout] = []
    var inbox: [[String: JSONValue]] = []
    /// The signed-in subscriber with its last token.
    var identity: Identity?
    /// This install of the app (kept in the app's files, so a reinstall gets a new one).
    var installId: String?
    /// The install this one replaced on the phone, until the server has been told (kept in the
    /// app's files beside ``installId``).
    var replacedInstallId: String?
    /// The last install of the app on this phone, as the secrets store (the Keychain) kept it:
    /// iOS keeps an app's Keychain items when the app is deleted, so a new install finds its
    /// predecessor's id there.
    var lastInstallOnPhone: String?
    /// BuzzKit's categories (buttons) seen in plans and sync answers, by id.
    var categories: [NotificationCategory] = []
    /// What could not be read, or was not valid.
    var errors: [BuzzKitError] = []

    /// Whether some state could not be read at all.
    var unreadable: Bool { errors.contains { $0.code == .storageUnreadable } }

    /// The names of the stored values (after ``Configuration/storageKeyPrefix``).
    enum Key {
        static let events = "events"
        static let plans = "plans"
        static let registration = "registration"
        static let identity = "identity"
        static let logouts = "logouts"
        static let inbox = "inbox"
        static let installId = "install-id"
        static let replacedInstallId = "replaced-install-id"
        static let categories = "categories"
        /// In the secrets store.
        static let lastInstallOnPhone = "last-install-on-phone"
        /// In the secrets store.
        static let token = "subscriber-token"
    }

    /// Empty state (what an instance holds before anything was saved).
    init() {}

    /// Reads the state of the instance whose keys start with `prefix`.
    init(store: any KeyValueStore, secrets: any KeyValueStore, prefix: String) {
        var errors: [BuzzKitError] = []
        func load<Value: Decodable>(_ type: Value.Type, _ name: String, from source: any KeyValueStore = store) -> Value? {
            do {
                return try source.value(Value.self, forKey: prefix + name)
            } catch {
                errors.append(error as? BuzzKitError ?? BuzzKitError(.storage, context: name, message: "\(error)"))
                return nil
            }
        }
        queue = load(EventQueue.self, Key.events) ?? EventQueue()
        book = load(PlanBook.self, Key.plans) ?? PlanBook()
        registration = load(RegistrationState.self, Key.registration) ?? RegistrationState()
        pendingLogouts = load([PendingLogout].self, Key.logouts) ?? []
        inbox = load([[String: JSONValue]].self, Key.inbox) ?? []
        identity = load(Identity?.self, Key.identity) ?? nil
        installId = load(String.self, Key.installId)
        replacedInstallId = load(String.self, Key.replacedInstallId)
        categories = load([NotificationCategory].self, Key.categories) ?? []
        lastInstallOnPhone = load(String.self, Key.lastInstallOnPhone, from: secrets)
        // The token lives in the secrets store; state written before it did kept it in the
        // identity (moved at the next save).
        if let token = load(String.self, Key.token, from: secrets) { identity?.lastToken = token }
        self.errors = errors
    }

    /// The install `current` replaced on this phone: the one already known, or, for a new
    /// install (no install id in the files), the one the Keychain outlived (`nil` when the
    /// secrets store went with the app, as it does where it is the plain store).
    func replacedInstall(by current: String) -> String? {
        if let replacedInstallId { return replacedInstallId }
        guard installId == nil, let lastInstallOnPhone, lastInstallOnPhone != current else { return nil }
        return lastInstallOnPhone
    }

    /// `self` with what an instance did in memory while its state could not be read put back
    /// on top: events it queued, logouts it owes, pushes it deferred, a device token or a
    /// sign-in that came meanwhile. Plans are the loaded book's (a reconcile brings it in line
    /// with the notification center).
    func merging(_ meanwhile: PersistedState, maximumQueuedEvents: Int) -> PersistedState {
        var merged = self
        for event in meanwhile.queue.events where !merged.queue.contains(id: event.id ?? "") {
            _ = merged.queue.append(event, maximum: maximumQueuedEvents)
        }
        merged.pendingLogouts += meanwhile.pendingLogouts.filter { !merged.pendingLogouts.contains($0) }
        merged.inbox += meanwhile.inbox
        if let desired = meanwhile.registration.desired { merged.registration.desired = desired }
        if let signedIn = meanwhile.identity, signedIn.subscriberId != merged.identity?.subscriberId || signedIn.lastToken != nil {
            merged.identity = signedIn
        }
        return merged
    }
}
