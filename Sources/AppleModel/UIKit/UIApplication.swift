import AppleModelCore
import Foundation

/// Model of `UIApplication` for one simulated phone: the app's state, its delegate, remote
/// notification registration, background tasks and the notifications UIKit posts, with the
/// rules iOS enforces.
///
/// - Delegate callbacks and notifications come on the main thread (Apple, UIApplicationDelegate:
///   UIKit "calls these methods on your app's main thread").
/// - A silent push: `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`, and
///   "your app has up to 30 seconds of wall-clock time to process the notification and call the
///   specified completion handler"; after that the app is suspended where it is (the model
///   tells the driver through ``modelOnRunningChange``; its completion is still checked).
/// - A background task: "expirationHandler: A handler to be called shortly before the app's
///   remaining background time reaches 0"; a task not ended then is a violation ("the system
///   terminates the app").
/// - The app runs while it is in the foreground, holds a silent push or a background task;
///   otherwise iOS suspends it a few seconds after it leaves the screen (Apple, "Managing your
///   app's life cycle").
@MainActor
open class UIApplication: UIResponder {
    private static let fallback = UIApplication(modelDevice: ModelDevice(timeZone: .current), deviceToken: Data(count: 32))

    /// The app's application object (in the model, a process-wide one on the real clock; each
    /// simulated phone makes its own with ``init(modelDevice:deviceToken:notificationCenter:)``).
    open class var shared: UIApplication { fallback }

    /// Model of `UIApplication.State`.
    public enum State: Int, Sendable {
        case active, inactive, background
    }

    /// Model of `UIApplication.LaunchOptionsKey`.
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let remoteNotification = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsRemoteNotificationKey")
    }

    nonisolated public static let didFinishLaunchingNotification = Notification.Name("UIApplicationDidFinishLaunchingNotification")
    nonisolated public static let didBecomeActiveNotification = Notification.Name("UIApplicationDidBecomeActiveNotification")
    nonisolated public static let didEnterBackgroundNotification = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    nonisolated public static let willEnterForegroundNotification = Notification.Name("UIApplicationWillEnterForegroundNotification")
    nonisolated public static let significantTimeChangeNotification = Notification.Name("UIApplicationSignificantTimeChangeNotification")
    nonisolated public static let protectedDataDidBecomeAvailableNotification = Notification.Name("UIApplicationProtectedDataDidBecomeAvailable")

    /// Whether protected files are readable: false on a phone not unlocked since it restarted
    /// (``ModelDevice/protectedDataAvailable``).
    public var isProtectedDataAvailable: Bool { modelDevice.protectedDataAvailable }

    /// The phone.
    public nonisolated let modelDevice: ModelDevice
    /// Where UIKit posts its notifications for this app (`NotificationCenter.default` on iOS).
    public nonisolated let modelNotificationCenter: NotificationCenter
    private let deviceToken: Data
    private weak var storedDelegate: (any UIApplicationDelegate)?
    private var tasks: [UIBackgroundTaskIdentifier: @MainActor @Sendable () -> Void] = [:]
    private var nextTask = 1
    private var wakes = 0
    private var running = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var silentPushes: [ObjectIdentifier: () -> Void] = [:]
    /// Whether the app's process has ended (killed by iOS or swiped away by the person).
    public private(set) var modelTerminated = false
    /// The app's state.
    open private(set) var applicationState: State = .background
    /// Told when the app starts or stops running (suspended): the driver freezes the app's
    /// clock and network while it is suspended.
    public var modelOnRunningChange: (@MainActor (Bool) -> Void)?

    /// The application object of one simulated phone (the model's own initializer).
    public nonisolated init(modelDevice: ModelDevice, deviceToken: Data, notificationCenter: NotificationCenter = NotificationCenter()) {
        self.modelDevice = modelDevice
        self.deviceToken = deviceToken
        modelNotificationCenter = notificationCenter
        super.init()
    }

    /// The app delegate (held weakly here; `unowned(unsafe)` on iOS).
    open var delegate: (any UIApplicationDelegate)? {
        get { storedDelegate }
        set { storedDelegate = newValue }
    }

    /// Asks APNs for the device token; it comes back to the delegate, on the main thread,
    /// at every launch (Apple: "call this method at launch time").
    open func registerForRemoteNotifications() {
        let token = deviceToken
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                guard let delegate = self.delegate else { return }
                UIApplicationDelegateRuntime.token(of: type(of: delegate))(delegate, self, token)
            }
        }
    }

    /// Begins a background task; `handler` runs when the 30 s are nearly up.
    open func beginBackgroundTask(withName name: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)?) -> UIBackgroundTaskIdentifier {
        let identifier = UIBackgroundTaskIdentifier(rawValue: nextTask)
        nextTask += 1
        tasks[identifier] = handler ?? {}
        updateRunning()
        let device = modelDevice
        let deadline = device.now.addingTimeInterval(30)
        Task { @MainActor in
            await device.sleep(until: deadline)
            guard let expire = self.tasks[identifier] else { return }
            expire()
            if self.tasks[identifier] != nil {
                device.violate("background task \(name ?? "") not ended by its expiration handler")
                self.tasks[identifier] = nil
                self.updateRunning()
            }
        }
        return identifier
    }

    /// Ends a background task.
    open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {
        tasks[identifier] = nil
        updateRunning()
    }

    /// The app's process ends: its code stops where it is, and iOS stops waiting for the
    /// silent pushes it held (no answer comes from a process that is gone).
    public func modelTerminate() {
        modelTerminated = true
        let held = silentPushes.values
        silentPushes = [:]
        for cutOff in held { cutOff() }
        tasks = [:]
        wakes = 0
        setState(.background)
    }

    func beginWake() {
        wakes += 1
        updateRunning()
    }

    func endWake() {
        wakes -= 1
        updateRunning()
    }

    func setState(_ state: State) {
        applicationState = state
        modelDevice.appInForeground = state == .active
        updateRunning()
    }

    /// Whether the app's code runs now.
    public var modelIsRunning: Bool { running }

    /// Returns once the app would be suspended: in the background with no silent push in
    /// hand and no background task.
    public func modelWhenIdle() async {
        guard running else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func updateRunning() {
        let now = applicationState != .background || wakes > 0 || !tasks.isEmpty
        guard now != running else { return }
        running = now
        modelOnRunningChange?(now)
        if !now {
            let waiters = idleWaiters
            idleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }
}
