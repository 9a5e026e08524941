import APNsStandIn
import AppleModelCore
import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import Network
import UserNotifications

/// One phone as iOS runs it: the Apple model's `UIApplication` and a real SDK instance per
/// launch of the app, configured in automatic mode through the SDK's Apple layer (the app
/// delegate hook, the notification delegate, the lifecycle observer, the center scheduler),
/// the app's life cycle (``AppState``), APNs' store for an offline device (``APNsMailbox``),
/// iOS's handling of silent pushes (``SilentPushPolicy``), the notification permission, the
/// phone's zone, and the person (opens the app, travels, signs out, reinstalls).
///
/// While the app is suspended or not running no SDK code runs: its clock (``AppClock``) and
/// network (``AppTransport``) belong to the launch and freeze with it; only the notification
/// center (the model's `UNUserNotificationCenter`), which stands for iOS, fires local
/// notifications by its own calendar rule and shows alerts. Every shown notification is
/// recorded with the subscriber signed in at that moment.
final class SimulatedPhone: @unchecked Sendable {
    /// The subscriber the phone started with.
    let subscriberId: String
    let behaviour: Behaviour
    let configuration: FleetConfiguration
    let systemClock: SystemClock
    let network = NetworkSwitch()
    /// The network as the app's `NWPathMonitor` sees it.
    let modelNetwork = ModelNetwork()
    /// The phone under the Apple model: its clock and zone are ``systemClock``'s.
    let device: ModelDevice
    let mailbox: APNsMailbox
    let baseTransport: any HTTPTransport
    /// Keeps the app on screen all the time (the drill's canary: a kiosk app).
    let alwaysInForeground: Bool
    /// Local notifications the app schedules itself, far ahead (they count towards iOS's 64).
    let appOwnRequests: Int
    let lock = NSLock()

    // Guarded by `lock`.
    var ownerStorage: String
    var tokenStorage: String
    var centerStorage: UNUserNotificationCenter
    var firing: Task<Void, Never>?
    /// Wakes the center's firing task (``attach(_:)``) to look at its requests again.
    var centerWakeup: Wakeup?
    var storeStorage = InMemoryKeyValueStore()
    /// The app's Keychain items: iOS keeps them when the app is deleted, so a reinstall finds
    /// them (Apple Developer Forums thread 36442, DTS: "All versions of iOS prior to 10.3 beta
    /// preserve keychain items when an app is deleted"; the 10.3 beta's change "was rolled back
    /// before 10.3 GM"; "an implementation detail", so BuzzKit uses it only as a hint).
    var keychainStorage = InMemoryKeyValueStore()
    var state: AppState = .notRunning
    var forceQuit: Bool
    var policy: SilentPushPolicy
    var process: AppProcess?
    var launching: Task<AppProcess?, Never>?
    /// How many times the app's process ended (``terminate(byPerson:)``): a launch under way
    /// when it changes was killed with the process it was making.
    var processEnds = 0
    var wakes = 0
    var shownStorage: [ShownNotification] = []
    var planIds: Set<String> = []
    /// Poked when the person's view changes (a plan handed over, a notification shown), so
    /// the person's script waits for it instead of looking ten or twenty times a second.
    let personSees = Wakeup()
    /// When the server accepted a batch of this phone's events.
    var deliveredAt: [Date] = []
    var collapsed = 0
    var throttled = 0
    var overruns = 0
    /// Seconds from each silent push's hand-over to the SDK's answer.
    var wakeTimes: [(began: Date, seconds: TimeInterval)] = []
    /// Seconds between an alert's arrival from APNs and this simulator handling it.
    var handOverDelays: [TimeInterval] = []
    var authorization: NotificationAuthorization
    /// Tokens this phone had before a reinstall (APNs answers 410 for them).
    var retiredTokens: [String] = []
    /// Which install of the app the phone has (1, then one more at each reinstall).
    var install = 1
    /// When the server first accepted each "owner|token" registration.
    var registered: [String: Date] = [:]
    /// When the server first dropped this phone's device from each former owner (a logout).
    var unregistered: [String: Date] = [:]
    /// The last things this phone's SDK and person did, for the report of a broken rule.
    var traceStorage: [(at: Date, entry: TraceEntry)] = []
    var lostPlans: Set<String> = []
    var released = 0
    /// Taps the person made, and the `$push.opened` events the SDK queued for them.
    var taps = 0
    var opensTracked = 0
    /// Buttons the person chose, and the `$push.action` events the SDK queued for them; the
    /// snoozes it scheduled.
    var actionsChosen = 0
    var actionsTracked = 0
    var snoozesScheduled = 0
    /// Event batches the API refused for now (an outage): those events wait on the phone.
    var flushFailures = 0
    /// The newest silent push iOS throttled, kept for the app's next run in the foreground.
    var heldThrottledPush: [String: JSONValue]?
    /// Throttled pushes iOS handed over later, when the app ran.
    var throttledDelivered = 0
    var restored = 0
    var held = 0
    var synced = 0
    /// Last calls (plans taken out with their acknowledgment on its way), plans shown when
    /// the answer came, and acknowledgments answered late (`alreadyShown`: after the copy fired).
    var lastCalls = 0
    /// Reads and writes of the app's protected files refused before the first unlock.
    var protectedRefusals = 0
    var shownAfterAnswer = 0
    var answeredLate = 0
    var lateAfterShown = 0
    /// A last-second phone's app withdraws plans whose acknowledgment the server has not
    /// confirmed this many seconds before they fire.
    static let lastSecondDeadline: TimeInterval = 0.4
    /// How many seconds before the moment a last-second phone comes back online.
    static let lastSecondReturn: TimeInterval = 1.0
    /// How long a slow last-second phone's requests take at least to reach the server (up to
    /// 0.45 s more): its acknowledgment arrives around the moment, while the fallback is decided.
    static let lastSecondSlowUplink: TimeInterval = 0.9

    /// Called when the phone's token changes (a reinstall), to route pushes anew.
    var onNewToken: (@Sendable (SimulatedPhone, String, String) -> Void)?

    /// A phone for `subscriberId` in `zone`. `receivesSilentPushes: false` is a phone whose
    /// app the person force-quit after setting it up.
    init(subscriberId: String, behaviour: Behaviour, receivesSilentPushes: Bool, zone: String, configuration: FleetConfiguration,
         transport: any HTTPTransport, lowPowerMode: Bool = false, silentBudget: Int = SilentPushPolicy.defaultHourlyBudget,
         appOwnRequests: Int = 0,
         authorization: NotificationAuthorization = .authorized, alwaysInForeground: Bool = false, seed: UInt64 = 1) throws {
        self.subscriberId = subscriberId
        self.behaviour = behaviour
        self.configuration = configuration
        self.alwaysInForeground = alwaysInForeground
        self.appOwnRequests = appOwnRequests
        self.authorization = authorization
        baseTransport = transport
        ownerStorage = subscriberId
        forceQuit = !receivesSilentPushes
        policy = SilentPushPolicy(hourlyBudget: silentBudget, backgroundRefresh: !lowPowerMode)
        mailbox = APNsMailbox(seed: seed)
        let clock = SystemClock(timeZone: TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")!)
        systemClock = clock
        device = ModelDevice(now: { clock.now }, timeZone: { clock.timeZone }, sleep: { try? await clock.sleep(until: $0) })
        tokenStorage = Self.newToken()
        centerStorage = UNUserNotificationCenter(modelDevice: device, authorization: authorization.modelStatus)
    }

    static func newToken() -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<64).map { _ in digits[Int.random(in: 0..<16)] })
    }

    func locked<T>(_ body: () -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body()
    }

    /// The device token now.
    var token: String { locked { tokenStorage } }
    /// The subscriber signed in now.
    var owner: String { locked { ownerStorage } }
    var center: UNUserNotificationCenter { locked { centerStorage } }
    var appState: AppState { locked { state } }
    /// Whether iOS hands this phone silent pushes (false while force-quit).
    var receivesSilentPushes: Bool { locked { !forceQuit } }
    /// The SDK instance of the running (or frozen) launch.
    var client: BuzzKitClient? { locked { process?.client } }

    /// Alerts that repeated one already shown (same collapse id).
    var collapsedRepeats: Int { locked { collapsed } }
    /// Silent pushes iOS throttled (the hourly budget).
    var throttledPushes: Int { locked { throttled } }
    /// Silent pushes the SDK answered later than iOS's 30 s.
    var budgetOverruns: Int { locked { overruns } }
    /// Seconds each alert waited between its arrival from APNs and the simulator handling it.
    var alertHandOverDelays: [TimeInterval] { locked { handOverDelays } }
    /// Seconds from each silent push's hand-over to the SDK's answer.
    var answeredWakes: [(began: Date, seconds: TimeInterval)] { locked { wakeTimes } }
    /// Whether the server accepted some of this phone's events between the two instants.
    func eventsDelivered(after start: Date, before end: Date) -> Bool {
        locked { deliveredAt.contains { $0 >= start && $0 < end } }
    }
    /// The local ids of the plans this phone was handed.
    var receivedPlanIds: [String] { locked { planIds.sorted() } }
    /// Distinct plans this phone was handed by APNs.
    var plansReceived: Int { locked { planIds.count } }
    var shown: [DeliveredNotification] { locked { shownStorage.map(\.notification) } }
    var shownWithOwner: [ShownNotification] { locked { shownStorage } }

    /// Whether the server accepted the current token (for the current owner).
    var isRegistered: Bool {
        get async { locked { registered["\(ownerStorage)|\(tokenStorage)"] != nil } }
    }

    /// What the SDK of install `from` reports (the simulator's view into the app). A deleted
    /// install's process is gone on a real phone (iOS kills it with the app): what its
    /// leftover tasks report here is noted apart for the trace and counts for nothing.
    func observe(_ activity: ClientActivity, from install: Int) {
        let current = locked { self.install }
        guard install == current else {
            note(activity, install: install, deleted: true)
            return
        }
        note(activity, install: install)
        switch activity {
        case .deviceRegistered(let registration):
            locked {
                let key = "\(ownerStorage)|\(registration.token)"
                if registered[key] == nil { registered[key] = Date() }
            }
        case .signedOut(let subscriberId, unregistered: true):
            locked { if unregistered[subscriberId] == nil { unregistered[subscriberId] = Date() } }
        case .planLost(let localId, _, _):
            locked { _ = lostPlans.insert(localId) }
        case .planReleased:
            locked { released += 1 }
        case .eventQueued(let name, _) where name == "$push.opened":
            locked { opensTracked += 1 }
        case .notificationAction(_, _, _, let snoozedUntil):
            locked {
                actionsTracked += 1
                if snoozedUntil != nil { snoozesScheduled += 1 }
            }
        case .eventsDelivered:
            locked { deliveredAt.append(Date()) }
        case .flushFailed:
            locked { flushFailures += 1 }
        case .planRestored:
            locked { restored += 1 }
        case .plansHeld(let ids):
            locked { held += ids.count }
        case .plansSynced(let added, let removed):
            locked { synced += added.count + removed.count }
        case .planAwaitingAnswer:
            locked { lastCalls += 1 }
        case .planShownLate:
            locked { shownAfterAnswer += 1 }
        case .acknowledgmentLate(_, _, let alreadyShown):
            locked { answeredLate += 1; if alreadyShown { lateAfterShown += 1 } }
        default:
            break
        }
    }

    /// What the SDK did on this phone: plans released, put back, held before suspension, and
    /// added or removed by a sync.
    var sdkCounts: (released: Int, restored: Int, held: Int, synced: Int) { locked { (released, restored, held, synced) } }

    /// The last calls of this phone's SDK (issue 45, race 3): plans taken out at it, shown when
    /// the server's answer came, acknowledgments answered late, and of those, after the copy fired.
    var lastCallCounts: (taken: Int, shown: Int, late: Int, lateAfterShown: Int) {
        locked { (lastCalls, shownAfterAnswer, answeredLate, lateAfterShown) }
    }

    /// Taps, `$push.opened` events the SDK queued, and throttled silent pushes handed over
    /// when the app next ran.
    var appleCounts: (taps: Int, opensTracked: Int, throttledDelivered: Int) { locked { (taps, opensTracked, throttledDelivered) } }
    /// Buttons chosen, tracked by the SDK, and snoozes it scheduled.
    var actionCounts: (chosen: Int, tracked: Int, snoozes: Int) { locked { (actionsChosen, actionsTracked, snoozesScheduled) } }

    /// Plans the phone acknowledged and then lost without telling the server.
    var plansLostAfterAcknowledging: Set<String> { locked { lostPlans } }

    func record(_ notification: DeliveredNotification) {
        lock.lock()
        // A repeat of the same id (an alert resent under the same apns-collapse-id) replaces
        // the one shown: "displayed to the user as a single notification" (Apple's APNs
        // documentation). Counted apart, not shown twice.
        if shownStorage.contains(where: { $0.notification.id == notification.id }) {
            collapsed += 1
        } else {
            shownStorage.append(ShownNotification(notification: notification, owner: ownerStorage))
        }
        lock.unlock()
        personSees.poke()
    }

    func countPlan(_ id: String) {
        lock.lock(); planIds.insert(id); lock.unlock()
        personSees.poke()
    }

    /// Waits until `ready` holds or `deadline` passes, looking again each time the person's
    /// view changes (``personSees``). Returns whether `ready` held.
    @discardableResult
    func waitUntil(_ deadline: Date, _ ready: () -> Bool) async -> Bool {
        while !ready() {
            guard Date() < deadline else { return false }
            await personSees.wait(until: deadline) { try await Task.sleep(nanoseconds: UInt64(max(0, $0.timeIntervalSinceNow) * 1e9)) }
        }
        return true
    }
}
