import BuzzKitWire
import Foundation

/// A notification center in memory, driven by a ``Clock``: what a simulated phone shows.
///
/// - A request fires when the instant its floating wall clock names **in the clock's current
///   zone** has arrived, so changing the zone moves it. Call ``fireDue()`` after moving a
///   manual clock, or let ``startAutomaticFiring(maximumSleep:)`` do it on a real clock.
/// - Like iOS it keeps at most ``capacity`` pending requests: after an add that overflows,
///   the latest-firing requests are discarded (see ``discarded``).
/// - A request whose instant has already passed when it is added never fires (a one-shot
///   calendar trigger in the past has no next date); it is discarded.
/// - Remote alerts are shown with ``presentRemote(payload:)``.
///
/// Every shown notification is kept in ``deliveredNotifications()`` and reported to the
/// observer, in firing order.
public actor InMemoryNotificationCenter: NotificationScheduling {
    /// The clock (and zone) the center fires by.
    public nonisolated let clock: any Clock
    /// The most pending requests kept (64 on iOS).
    public nonisolated let capacity: Int

    private var pending: [String: (request: NotificationRequest, sequence: Int)] = [:]
    private var sequence = 0
    private var delivered: [DeliveredNotification] = []
    private var discardedRequests: [NotificationRequest] = []
    private var observer: (@Sendable (DeliveredNotification) -> Void)?
    private var loop: Task<Void, Never>?
    private var loopWakeAt: Date?
    private var loopMaximumSleep: TimeInterval = 1
    private var permission: NotificationAuthorization
    private var answerWhenAsked: NotificationAuthorization
    private var categories: [String: NotificationCategory] = [:]

    /// A center firing by `clock`, keeping at most `capacity` pending requests.
    /// `authorization` is the permission now; `answerWhenAsked` what the person answers
    /// when the app asks while it is `notDetermined`.
    public init(clock: any Clock, capacity: Int = 64, authorization: NotificationAuthorization = .authorized,
                answerWhenAsked: NotificationAuthorization = .authorized) {
        self.clock = clock
        self.capacity = capacity
        self.permission = authorization
        self.answerWhenAsked = answerWhenAsked
    }

    /// The person changes the permission in Settings.
    public func setAuthorization(_ authorization: NotificationAuthorization) {
        permission = authorization
    }

    /// The permission now.
    public func authorizationStatus() async -> NotificationAuthorization { permission }

    /// Asks once: a `notDetermined` permission becomes the person's answer.
    public func requestAuthorization() async throws -> NotificationAuthorization {
        if permission == .notDetermined { permission = answerWhenAsked }
        return permission
    }

    /// Registers categories as iOS keeps them: one per id (the app's own included).
    public func registerCategories(_ categories: [NotificationCategory]) {
        for category in categories { self.categories[category.id] = category }
    }

    /// The ids of the registered categories.
    public func registeredCategoryIds() -> Set<String> {
        Set(categories.keys)
    }

    /// The registered category with this id (the buttons a notification of it shows).
    public func category(_ id: String) -> NotificationCategory? {
        categories[id]
    }

    /// Calls `observer` for every notification shown from now on (synchronously, inside the
    /// center: keep it short).
    public func setObserver(_ observer: (@Sendable (DeliveredNotification) -> Void)?) {
        self.observer = observer
    }

    // MARK: NotificationScheduling

    /// Adds or replaces a request, then enforces ``capacity``.
    public func add(_ request: NotificationRequest) async throws {
        let now = clock.now
        let instant = request.fireInstant(in: clock.timeZone)
        guard instant > now else {
            pending.removeValue(forKey: request.id)
            discardedRequests.append(request)
            return
        }
        sequence += 1
        pending[request.id] = (request, sequence)
        enforceCapacity()
        if let wake = loopWakeAt, instant < wake, loop != nil { restartLoop() }
    }

    /// Removes pending requests by id.
    public func removePendingRequests(withIdentifiers ids: [String]) async {
        for id in ids { pending.removeValue(forKey: id) }
    }

    /// The pending requests, soonest first (in the current zone).
    public func pendingRequests() async -> [NotificationRequest] {
        orderedPending().map(\.request)
    }

    /// Everything shown so far (and not removed), in firing order.
    public func deliveredNotifications() async -> [DeliveredNotification] {
        delivered
    }

    /// Removes shown notifications by id.
    public func removeDeliveredNotifications(withIdentifiers ids: [String]) async {
        let removed = Set(ids)
        delivered.removeAll { removed.contains($0.id) }
    }

    // MARK: Simulation

    /// The requests discarded by the capacity limit or added with a past fire time.
    public var discarded: [NotificationRequest] { discardedRequests }

    /// How many requests are pending.
    public var pendingCount: Int { pending.count }

    /// The soonest pending fire instant in the current zone.
    public func nextFireDate() -> Date? {
        orderedPending().first.map { $0.request.fireInstant(in: clock.timeZone) }
    }

    /// Fires every pending request whose instant (in the current zone) has arrived, soonest
    /// first, and returns what was shown.
    @discardableResult
    public func fireDue() -> [DeliveredNotification] {
        let now = clock.now
        let zone = clock.timeZone
        let due = orderedPending().filter { $0.request.fireInstant(in: zone) <= now }
        var shown: [DeliveredNotification] = []
        for entry in due {
            pending.removeValue(forKey: entry.request.id)
            let notification = DeliveredNotification(
                id: entry.request.id, origin: .local, title: entry.request.title, body: entry.request.body,
                userInfo: entry.request.userInfo, scheduledFor: entry.request.fireInstant(in: zone),
                deliveredAt: now, timeZoneIdentifier: zone.identifier)
            show(notification)
            shown.append(notification)
        }
        return shown
    }

    /// Shows a remote alert push (`aps.alert` with `title`/`body`, or a plain string), as iOS
    /// does without involving the app. Returns `nil` for a payload without an alert.
    ///
    /// `receivedAt` is when the device received the push, on this center's clock (now when
    /// omitted): iOS shows an alert as it arrives, so a caller that hands it over later
    /// (a simulator busy with other phones) passes the arrival time.
    @discardableResult
    public func presentRemote(payload: [String: JSONValue], receivedAt: Date? = nil) -> DeliveredNotification? {
        guard case .object(let aps)? = payload["aps"], let alert = aps["alert"] else { return nil }
        let title = alert["title"]?.stringValue ?? ""
        let body = alert["body"]?.stringValue ?? alert.stringValue ?? ""
        let message = NotificationMessage(userInfo: payload)
        let id = message.map { message in message.localId.map(LocalPlan.fallbackName) ?? message.messageId }
            ?? UUID().uuidString.lowercased()
        let notification = DeliveredNotification(
            id: id, origin: .remote, title: title, body: body, userInfo: payload, scheduledFor: nil,
            deliveredAt: receivedAt ?? clock.now, timeZoneIdentifier: clock.timeZone.identifier)
        show(notification)
        return notification
    }

    /// Fires due requests by itself from now on: a task sleeps on the clock until the next
    /// fire instant, at most `maximumSleep` seconds (so zone changes and clock jumps are
    /// noticed), and wakes early when a sooner request is added.
    public func startAutomaticFiring(maximumSleep: TimeInterval = 1) {
        loopMaximumSleep = maximumSleep
        if loop == nil { restartLoop() }
    }

    /// Stops automatic firing.
    public func stopAutomaticFiring() {
        loop?.cancel()
        loop = nil
        loopWakeAt = nil
    }

    // MARK: Internals

    /// Shows a notification unless the person denied permission (then iOS fires the request
    /// or takes the alert without showing anything).
    private func show(_ notification: DeliveredNotification) {
        guard permission.canShow else { return }
        delivered.append(notification)
        observer?(notification)
    }

    private func orderedPending() -> [(request: NotificationRequest, sequence: Int)] {
        let zone = clock.timeZone
        return pending.values
            .map { (entry: $0, instant: $0.request.fireInstant(in: zone)) }
            .sorted { ($0.instant, $0.entry.sequence) < ($1.instant, $1.entry.sequence) }
            .map(\.entry)
    }

    private func enforceCapacity() {
        guard pending.count > capacity else { return }
        for entry in orderedPending().dropFirst(capacity) {
            pending.removeValue(forKey: entry.request.id)
            discardedRequests.append(entry.request)
        }
    }

    private func restartLoop() {
        loop?.cancel()
        let clock = self.clock
        loop = Task { [weak self] in
            while !Task.isCancelled {
                guard let wake = await self?.fireAndPlanWake() else { return }
                do { try await clock.sleep(until: wake) } catch { return }
            }
        }
    }

    private func fireAndPlanWake() -> Date {
        fireDue()
        let limit = clock.now.addingTimeInterval(loopMaximumSleep)
        let wake = nextFireDate().map { min($0, limit) } ?? limit
        loopWakeAt = wake
        return wake
    }
}
