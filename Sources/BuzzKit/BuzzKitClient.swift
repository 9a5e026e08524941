import BuzzKitWire
import Foundation

/// One SDK instance: everything a device's BuzzKit does, with all its state inside.
///
/// Apps use the ``BuzzKit`` facade over one shared instance; the device simulator creates as
/// many instances as it simulates phones, each with its own ``BuzzKitPorts``.
///
/// - Plans (`bk.local`) become pending requests and are acknowledged (`$local.scheduled`,
///   flushed at once); `cancelOn` names go into a persisted registry.
/// - ``track(_:properties:)`` removes what the event cancels at once, offline included, and
///   queues the event; the queue is persisted and flushed in batches with backoff.
/// - `bk.cancel` removes by exact id or prefix; taps track `$push.opened` and reach the
///   open handler.
/// - The pending limit (64) keeps the soonest plans. See ``PlanRecord/State/parked`` and
///   ``ClientActivity`` for what happens to plans pushed out, and
///   ``Configuration/acknowledgmentDeadline`` for plans whose acknowledgment never got through.
///
/// State changes run one at a time (an internal gate) so concurrent pushes cannot overfill
/// the center; network requests run outside the gate.
public actor BuzzKitClient: PushEventHandling {
    /// The configuration.
    public nonisolated let configuration: Configuration
    /// The platform.
    public nonisolated let ports: BuzzKitPorts

    // Persisted state.
    var queue: EventQueue
    var book: PlanBook
    var registration: RegistrationState
    var identity: Identity?
    var pendingLogouts: [PendingLogout]
    var tokenProvider: SubscriberTokenProvider?

    // App state: whether the app is in the foreground (code runs until it leaves), and the
    // last reconciliation with the server's plan list.
    var inForeground = false
    /// Wakes running now (see ``wakeBegan()``); the last to end holds unconfirmed plans.
    var activeWakes = 0
    /// The latest `workUntil` of the wakes begun (see ``canReleaseInTime(now:)``).
    var wakesWorkUntil: Date?
    /// How late this process's waits came back lately (``waitAtMost(until:_:)``).
    var deadlineLateness = DeadlineLateness()
    /// The unconfirmed plans were held for a suspension and no wake has begun since: a plan
    /// that arrives now is held, not scheduled, and parked plans stay parked.
    var suspending = false
    var syncTask: Task<Void, Never>?
    /// A plan arrived while the running sync was already under way: sync once more.
    var syncAgain = false
    /// A plan push was refused because the device had not moved to the new subscriber yet.
    var refusedBeforeSwitch = false
    var lastSyncAt: Date?
    /// How long the API took to answer this phone's latest requests, in seconds (the last
    /// eight): ``confirmFirstWindowNow`` grows with them.
    var answerTimes: [TimeInterval] = []
    /// Events tracked lately, with when: a sync whose request went out before one of them
    /// lists plans of runs triggered before it, which that event cancels (see `applySync`).
    var recentlyTracked: [(name: String, at: Date)] = []
    var registeredThisLaunch = false
    var logoutTask: Task<Void, Never>?

    // Gate: one state change at a time.
    var gateBusy = false
    var gateWaiters: [GateWaiter] = []
    var nextGateWaiter: UInt64 = 0
    /// Pushes a wake could not apply in time (the gate stayed busy), persisted and applied
    /// at the next entry point. See ``deferPush(_:)``.
    var inbox: [[String: JSONValue]]

    // Flushing.
    var flight: Task<Void, Never>?
    /// Waiting for the flight's next batch to be answered (``settle(until:)``).
    var flightStepWaiters: [CheckedContinuation<Void, Never>] = []
    var inFlightEventIds: Set<String> = []
    var flushDueAt: Date?
    var retryAt: Date?
    var consecutiveFailures = 0
    /// Whether the last flush that failed was answered by the server (an error status: the
    /// API is reachable, something behind it is not), rather than cut off by the network.
    var lastFlushAnswered = false
    var forceNextFlush = false
    var finalAttempts: Set<String> = []
    var cachedToken: String?

    // Timer.
    var activeTicks = 0
    /// A tick waiting for the gate, which later ticks join instead of queueing another.
    var queuedTick: Task<Void, Never>?
    var timer: Task<Void, Never>?
    var timerDeadline: Date?
    /// When the latest pass over the deadlines and last calls began (``tick()``): the timer is
    /// set for what comes after it, even if the clock moved on before the timer was set.
    var lastPassAt: Date?

    // Registration.
    var registrationTask: Task<BuzzKitError?, Never>?
    var registrationRetryAt: Date?
    var registrationFailures = 0
    var registrationRefused = false

    // App hooks.
    var openHandler: (@Sendable (OpenedNotification) async -> Void)?
    var unhandledOpens: [OpenedNotification] = []
    var lastEventTimestamp: Date?
    var observer: (@Sendable (ClientActivity) -> Void)?
    var started = false
    var stopped = false
    var loadErrors: [BuzzKitError] = []
    /// Some persisted state could not be read (``PersistedState``): nothing is saved, so the
    /// real state is not overwritten, until a read succeeds (``readStateIfUnreadable()``).
    var stateUnreadable = false
    /// This install of the app, sent with the device registration: a new install (the app was
    /// deleted, and its local notifications with it) retires what the old one acknowledged.
    /// Kept in the store, not the Keychain, which would outlive the app.
    var installId: String
    /// The install of the app this one replaced on the phone (the app was deleted and
    /// installed again; the Keychain kept the old id), sent with the registration so the
    /// server retires what the old install acknowledged under its own, now dead, token.
    var replacedInstallId: String?
    /// BuzzKit's categories (buttons) by id, as plans and sync answers named them: what a
    /// chosen button does (``handleNotificationAction(_:on:receivedAt:)``).
    var knownCategories: [String: NotificationCategory] = [:]

    /// An instance with its persisted state loaded from `ports.store`. Nothing is sent until
    /// ``start()``, a push, a tap or a tracked event.
    public init(configuration: Configuration, ports: BuzzKitPorts) throws {
        try configuration.validate()
        self.configuration = configuration
        self.ports = ports
        let state = PersistedState(store: ports.store, secrets: ports.secrets, prefix: configuration.storageKeyPrefix)
        queue = state.queue
        book = state.book
        var registration = state.registration
        if let token = configuration.deviceToken {
            registration.desired = configuration.registration(token: token)
        }
        self.registration = registration
        pendingLogouts = state.pendingLogouts
        inbox = state.inbox
        let remembered = state.identity
        if let subscriberId = configuration.subscriberId {
            identity = remembered?.subscriberId == subscriberId ? remembered : Identity(subscriberId: subscriberId)
            tokenProvider = configuration.subscriberToken
        } else {
            identity = remembered
        }
        cachedToken = identity?.lastToken
        loadErrors = state.errors
        stateUnreadable = state.unreadable
        installId = state.installId ?? UUID().uuidString.lowercased()
        replacedInstallId = state.replacedInstall(by: installId)
        knownCategories = Dictionary(state.categories.map { ($0.id, $0) }) { $1 }
        flushDueAt = queue.isEmpty ? nil : ports.clock.now
    }

    deinit {
        timer?.cancel()
    }

    /// Starts the instance (the app launched, in the foreground or in the background for a
    /// push): attaches to the platform's push events (when
    /// ``Configuration/automaticPushHandling`` is on and ``BuzzKit/configure(_:ports:)`` has
    /// not already), reconciles plans with the notification center, registers the device
    /// (every launch), retries a pending logout, flushes what was queued before and syncs
    /// with the server's plan list. Returns after those requests finished; later calls do
    /// nothing. A launch in the background (for a push) ends like a background wake
    /// (``applicationDidEnterBackground()``), a foreground one waits for everything.
    public func start() async {
        guard !started else { return }
        started = true
        for error in loadErrors { report(.error(error)) }
        loadErrors = []
        if registration.desired != nil { saveRegistration() }
        saveIdentity()
        saveInstall()
        attachToPushEvents()
        let wake = wakeDeadline(began: clock.now)
        wakeBegan(wake)
        await beginWake()
        await endWake(wake)
    }

    /// Attaches to the platform's push events when automatic handling is on.
    nonisolated func attachToPushEvents() {
        if configuration.automaticPushHandling, let source = ports.pushEvents {
            source.attach(self)
        }
    }

    /// Stops the timer for good and detaches from the platform's push events (the app going
    /// away), then waits for a running flush. Explicit calls still work but set no more
    /// timers. Persisted state stays; a new instance over the same store carries on.
    public func shutdown() async {
        stopped = true
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        if let source = ports.pushEvents { source.detach(self) }
        await settle()
    }

    /// Reports every ``ClientActivity`` to `observer`, synchronously and in order (keep it
    /// short; it runs inside the client).
    public func setActivityObserver(_ observer: (@Sendable (ClientActivity) -> Void)?) {
        self.observer = observer
    }

    /// Routes taps: called with every opened BuzzKit notification after `$push.opened` was
    /// queued (for example to open its deep link). Taps that came before a handler was set (a
    /// tap that launched the app) are handed to it at once.
    public func setOpenHandler(_ handler: (@Sendable (OpenedNotification) async -> Void)?) async {
        openHandler = handler
        guard let handler, !unhandledOpens.isEmpty else { return }
        let waiting = unhandledOpens
        unhandledOpens = []
        for opened in waiting { await handler(opened) }
    }

    // MARK: Inspection (this package's tests and device simulator; not the app's API)

    /// The events waiting to be posted, oldest first.
    package var queuedEvents: [BuzzEvent] { queue.events }

    /// The plans this device knows, the `cancelOn` registry and recent cancellations.
    package var planBook: PlanBook { book }

    /// When the next flush attempt may happen after failures (`nil`: not backing off).
    package var nextRetryDate: Date? { retryAt }

    /// How many flushes failed in a row.
    package var consecutiveFlushFailures: Int { consecutiveFailures }

    /// The registration the server last accepted.
    package var registeredDevice: PushRegistration? { registration.registered }

    /// Waits until no flush, registration, sync or logout is in flight. Scheduled retries are not
    /// waited for.
    public func settle() async {
        while true {
            if let flight {
                await flight.value
                continue
            }
            if let registrationTask {
                _ = await registrationTask.value
                continue
            }
            if let syncTask {
                await syncTask.value
                continue
            }
            if let logoutTask {
                await logoutTask.value
                continue
            }
            return
        }
    }

    // MARK: Internals

    /// The keys of the persisted values (after ``Configuration/storageKeyPrefix``).
    typealias StorageKey = PersistedState.Key

    nonisolated var clock: any Clock { ports.clock }
    nonisolated var center: any NotificationScheduling { ports.notificationCenter }

    func report(_ activity: ClientActivity) {
        observer?(activity)
    }

    func saveQueue() { saveWritten(queue, StorageKey.events) }
    func saveBook() { saveWritten(book, StorageKey.plans) }
    func saveRegistration() { save(registration, StorageKey.registration) }
    /// The identity without its token in the store, the token in the secrets store.
    func saveIdentity() {
        var stored = identity
        stored?.lastToken = nil
        save(stored, StorageKey.identity)
        save(identity?.lastToken, StorageKey.token, in: ports.secrets)
    }
    func saveLogouts() { save(pendingLogouts, StorageKey.logouts) }
    /// This install's id in the files, the one it replaced, and this install as the phone's
    /// last in the secrets store (which outlives the app).
    func saveInstall() {
        save(installId, StorageKey.installId)
        if let replacedInstallId { save(replacedInstallId, StorageKey.replacedInstallId) }
        save(installId, StorageKey.lastInstallOnPhone, in: ports.secrets)
    }

    func save<Value: Encodable>(_ value: Value, _ name: String, in store: (any KeyValueStore)? = nil) {
        guard !stateUnreadable else { return }
        do {
            try (store ?? ports.store).setValue(value, forKey: configuration.storageKeyPrefix + name)
        } catch {
            report(.error(error as? BuzzKitError ?? BuzzKitError(.storage, context: name, message: "\(error)")))
        }
    }

    /// Saves state written on every change (the book, the queue) without `JSONEncoder`.
    func saveWritten(_ value: some JSONWritable, _ name: String) {
        guard !stateUnreadable else { return }
        do {
            try ports.store.setJSON(value, forKey: configuration.storageKeyPrefix + name)
        } catch {
            report(.error(error as? BuzzKitError ?? BuzzKitError(.storage, context: name, message: "\(error)")))
        }
    }

    /// The signed-in subscriber, if any.
    public var subscriberId: String? { identity?.subscriberId }

    /// A new event for the signed-in subscriber with a fresh client id, stamped now (`nil`
    /// when nobody is signed in).
    func makeEvent(_ name: String, properties: [String: JSONValue]) -> BuzzEvent? {
        guard let subscriberId = identity?.subscriberId else { return nil }
        // Strictly increasing, to the millisecond the wire carries: the server orders a plan's
        // acknowledgment and release by their timestamps, so two must never tie.
        var stamp = clock.now
        if let last = lastEventTimestamp, stamp < last.addingTimeInterval(0.001) { stamp = last.addingTimeInterval(0.001) }
        lastEventTimestamp = stamp
        return BuzzEvent(id: UUID().uuidString.lowercased(), event: name, subscriberId: subscriberId,
                         properties: properties, timestamp: stamp)
    }
}
