import AppleModelCore
import Foundation

/// Model of `UNUserNotificationCenter` for one simulated phone: iOS's rules for local
/// requests, delivery, presentation and responses, each with Apple's words.
///
/// - Pending requests: adding one with an identifier already pending replaces it (Apple,
///   `add(_:withCompletionHandler:)`: "If you use the same identifier when scheduling a new
///   notification, the system removes the previously scheduled notification with that
///   identifier and replaces it with the new one"). At most ``capacity`` (64) stay: "the system
///   keeps the soonest-firing 64 notifications ... and discards the rest" (Apple, Local and
///   Remote Notification Programming Guide, "Scheduling Local Notifications"). A request whose
///   trigger has no next date never fires and is not kept.
/// - Firing: calendar triggers by ``UNCalendarNotificationTrigger``'s own rule in the phone's
///   zone at the time (``ModelDevice/timeZone``), checked when the driver calls
///   ``modelDeliverDue()``.
/// - Presentation: in the background a notification is shown; in the foreground iOS asks the
///   delegate's `willPresent` on the main thread and shows it only with `.banner` or `.list`
///   ("If your app is in the foreground ... the system calls this method"; without a delegate
///   the notification is not shown).
/// - Responses: a tap calls the delegate's `didReceive` on the main thread, after the app has
///   launched ("the system delivers the response after your app finishes launching").
///
/// Every completion handler is checked (once, on the main thread) through ``CompletionCheck``.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    private static let fallback = UNUserNotificationCenter(modelDevice: ModelDevice(timeZone: .current))

    /// The app's center. In the model each phone's center is made with
    /// ``init(modelDevice:capacity:authorization:answerWhenAsked:)``; `current()` is a
    /// process-wide one on the real clock.
    open class func current() -> UNUserNotificationCenter { fallback }

    /// The phone.
    public let modelDevice: ModelDevice
    /// The most pending requests kept.
    public let capacity: Int
    private let lock = NSLock()
    private var pending: [(request: UNNotificationRequest, sequence: Int)] = []
    private var sequence = 0
    private var delivered: [UNNotification] = []
    private var categories: Set<UNNotificationCategory> = []
    private var status: UNAuthorizationStatus
    private let answer: UNAuthorizationStatus
    private weak var storedDelegate: (any UNUserNotificationCenterDelegate)?
    private var observer: (@Sendable (ModelPresentation) -> Void)?
    private var changeObserver: (@Sendable () -> Void)?

    /// A center for one simulated phone (the model's own initializer: iOS makes the center).
    public init(modelDevice: ModelDevice, capacity: Int = 64, authorization: UNAuthorizationStatus = .authorized,
                answerWhenAsked: UNAuthorizationStatus = .authorized) {
        self.modelDevice = modelDevice
        self.capacity = capacity
        status = authorization
        answer = answerWhenAsked
        super.init()
    }

    /// The delegate, held weakly (Apple: "weak var delegate").
    open var delegate: (any UNUserNotificationCenterDelegate)? {
        get { lock.withLock { storedDelegate } }
        set { lock.withLock { storedDelegate = newValue } }
    }

    /// Schedules `request`.
    open func add(_ request: UNNotificationRequest) async throws {
        let now = modelDevice.now
        if let calendar = request.trigger as? UNCalendarNotificationTrigger {
            calendar.evaluationZone = { [modelDevice] in modelDevice.timeZone }
            calendar.evaluationStart = now
        } else if let interval = request.trigger as? UNTimeIntervalNotificationTrigger {
            interval.addedAt = now
        }
        guard request.trigger != nil else {
            await present(UNNotification(request: request, date: now))
            return
        }
        lock.withLock {
            pending.removeAll { $0.request.identifier == request.identifier }
            sequence += 1
            pending.append((request, sequence))
            pending = Self.keepSoonest(pending, capacity: capacity, after: now)
        }
        lock.withLock { changeObserver }?()
    }

    /// Removes pending requests by identifier.
    open func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        let ids = Set(identifiers)
        lock.withLock { pending.removeAll { ids.contains($0.request.identifier) } }
    }

    /// Every pending request, in the order they were added.
    open func pendingNotificationRequests() async -> [UNNotificationRequest] {
        lock.withLock { pending.map(\.request) }
    }

    /// The notifications in Notification Center, oldest first.
    open func deliveredNotifications() async -> [UNNotification] {
        lock.withLock { delivered }
    }

    /// Removes shown notifications by identifier.
    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        let ids = Set(identifiers)
        lock.withLock { delivered.removeAll { ids.contains($0.request.identifier) } }
    }

    /// "Registers the notification categories that your app supports": the whole set, replacing
    /// the one registered before (Apple: "Calling this method replaces the existing categories").
    open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        lock.withLock { self.categories = categories }
    }

    /// "Fetches the app's registered notification categories."
    open func notificationCategories() async -> Set<UNNotificationCategory> {
        lock.withLock { categories }
    }

    /// The completion-handler form of ``notificationCategories()``.
    open func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        completionHandler(lock.withLock { categories })
    }

    /// The buttons iOS shows under a notification of `categoryIdentifier`: its registered
    /// category's actions, none when no registered category has that identifier.
    public func modelActions(forCategory categoryIdentifier: String) -> [UNNotificationAction] {
        lock.withLock { categories.first { $0.identifier == categoryIdentifier }?.actions ?? [] }
    }

    /// The settings, read anew each time (the person may have changed them in Settings).
    open func notificationSettings() async -> UNNotificationSettings {
        UNNotificationSettings(authorizationStatus: lock.withLock { status })
    }

    /// Asks the person once; later calls answer without asking (Apple: "the system prompts
    /// the user ... only the first time").
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        lock.withLock {
            if status == .notDetermined { status = options.contains(.provisional) && answer == .authorized ? .provisional : answer }
            return status == .authorized || status == .provisional
        }
    }

    /// Called with every notification the model delivered (shown or not), outside its lock.
    public var modelOnPresent: (@Sendable (ModelPresentation) -> Void)? {
        get { lock.withLock { observer } }
        set { lock.withLock { observer = newValue } }
    }

    /// Called after a request is added (the driver's firing task may have a sooner date to
    /// wait for), outside the center's lock.
    public var modelOnChange: (@Sendable () -> Void)? {
        get { lock.withLock { changeObserver } }
        set { lock.withLock { changeObserver = newValue } }
    }

    /// Takes the requests due at `now` out of the pending ones, with their trigger dates; every
    /// calendar trigger's next date is looked for after the previous look, so a wall clock that
    /// a zone change skipped between two looks never fires (iOS recomputes a floating trigger's
    /// next date in the new zone).
    func lockedDue(now: Date) -> [(UNNotificationRequest, Date)] {
        lock.withLock {
            var due: [(UNNotificationRequest, Date)] = []
            pending.removeAll { entry in
                let since = entry.request.evaluatedSince ?? now
                guard let date = Self.nextDate(of: entry.request, after: since.addingTimeInterval(-0.001)) else { return true }
                guard date <= now else { return false }
                due.append((entry.request, date))
                return true
            }
            for entry in pending { (entry.request.trigger as? UNCalendarNotificationTrigger)?.evaluationStart = now }
            return due.sorted { $0.1 < $1.1 }
        }
    }

    func appendDelivered(_ notification: UNNotification) {
        lock.withLock { delivered.append(notification) }
    }

    /// The person changes the permission in Settings.
    public func modelSetAuthorization(_ authorization: UNAuthorizationStatus) {
        lock.withLock { status = authorization }
    }

    static func nextDate(of request: UNNotificationRequest, after date: Date) -> Date? {
        switch request.trigger {
        case let calendar as UNCalendarNotificationTrigger: return calendar.nextDate(after: date)
        case let interval as UNTimeIntervalNotificationTrigger: return interval.nextTriggerDate()
        default: return nil
        }
    }

    /// The soonest-firing `capacity` requests. Each one's next date is looked for after the
    /// center's previous look at it, so a request that came due since (not delivered yet: the
    /// driver looks a few times a second) is the soonest, not a past one to discard.
    static func keepSoonest(_ requests: [(request: UNNotificationRequest, sequence: Int)], capacity: Int,
                            after now: Date) -> [(request: UNNotificationRequest, sequence: Int)] {
        let dated = requests.compactMap { entry in
            nextDate(of: entry.request, after: (entry.request.evaluatedSince ?? now).addingTimeInterval(-0.001)).map { (entry, $0) }
        }
        let kept = dated.sorted { ($0.1, $0.0.sequence) < ($1.1, $1.0.sequence) }.prefix(capacity)
        return kept.map(\.0).sorted { $0.sequence < $1.sequence }
    }
}

extension NSLock {
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
