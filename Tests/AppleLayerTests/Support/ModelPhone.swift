import AppleModelCore
import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import Network
import UIKit
import UserNotifications

/// One phone of the Apple model running an app that uses BuzzKit the way the README says:
/// `configure` in `application(_:didFinishLaunchingWithOptions:)`, automatic push handling, no
/// other push code. Everything BuzzKit does on it goes through the SDK's Apple layer: the app
/// delegate hook, the notification delegate, the lifecycle observer, the center scheduler.
///
/// Time is real (plans fire a few seconds ahead); the zone is the phone's and can change.
@MainActor
final class ModelPhone {
    nonisolated static let deviceToken = Data((0..<32).map { UInt8($0) })
    nonisolated static var deviceTokenHex: String { deviceToken.map { String(format: "%02x", $0) }.joined() }

    let clock: SystemClock
    let device: ModelDevice
    let network = ModelNetwork()
    let server = ModelServer()
    let center: UNUserNotificationCenter
    let application: UIApplication
    let appDelegate = GymAppDelegate()
    private(set) var client: BuzzKitClient?

    /// A phone in `zone`, not yet launched.
    init(zone: TimeZone) {
        let clock = SystemClock(timeZone: zone)
        self.clock = clock
        device = ModelDevice(now: { Date() }, timeZone: { clock.timeZone }, sleep: { deadline in
            let seconds = deadline.timeIntervalSinceNow
            if seconds > 0 { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
        })
        center = UNUserNotificationCenter(modelDevice: device)
        application = UIApplication(modelDevice: device, deviceToken: Self.deviceToken)
    }

    /// iOS launches the app (the person, or a push in the background); the app configures
    /// BuzzKit in `didFinishLaunching`, as the README's three lines do.
    func launch(foreground: Bool, adjust: @escaping (inout Configuration) -> Void = { _ in }) {
        let environment = ApplicationEnvironment(
            pushEvents: ApplicationPushEventSource(center: center, application: { [application] in application }),
            notifications: application.modelNotificationCenter,
            pathMonitor: { [network] in NWPathMonitor(modelNetwork: network) })
        let ports = BuzzKitPorts(notificationCenter: UserNotificationCenterScheduler(center: center), clock: clock,
                                 store: InMemoryKeyValueStore(), transport: server)
        appDelegate.onLaunch = { [unowned self] in
            var configuration = Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test/")!, publishableKey: "pk_tenant_secret",
                                              subscriberId: "u_123", subscriberToken: .fixed(Self.subscriberToken),
                                              pushTopic: "com.example.gym")
            configuration.acknowledgmentDeadline = 1
            configuration.eventFlushDelay = 0
            adjust(&configuration)
            let client = try? environment.makeClient(configuration, ports: ports)
            self.client = client
            Task { if ProcessInfo.processInfo.environment["BK_DEBUG"] != nil { await client?.setActivityObserver { print("ACT", $0) } }; await client?.start() }
        }
        application.modelLaunch(delegate: appDelegate, foreground: foreground)
    }

    static let subscriberToken = "v1.\(Int(Date().timeIntervalSince1970) + 86_400).\(String(repeating: "ab", count: 32))"

    /// A silent push as APNs hands it to iOS (the JSON, as property-list values); a plan is live
    /// on the server from then on (sync lists it).
    func silentPush(_ payload: any APNsPayload) async -> UIBackgroundFetchResult? {
        if let plan = payload as? SilentPlanPayload { server.live(plan.local) }
        return await application.modelDeliverSilentPush(userInfo: Self.userInfo(payload))
    }

    /// The payload's JSON as iOS's `userInfo`.
    nonisolated static func userInfo(_ payload: any APNsPayload) -> [AnyHashable: Any] {
        (try? JSONSerialization.jsonObject(with: Data(payload.jsonBytes))) as? [AnyHashable: Any] ?? [:]
    }

    /// A plan push for the wall clock `seconds` from now in the phone's zone (or `zone`).
    static func plan(_ id: String, in seconds: TimeInterval, zone: TimeZone) -> SilentPlanPayload {
        SilentPlanPayload(local: LocalPlan(id: id, messageId: "msg-\(id)", fireAt: FireAt(instant: Date().addingTimeInterval(seconds), in: zone),
                                           title: "Leg day", body: "6:00 with Maya.", deepLink: "gym://workouts/legs",
                                           data: ["workoutId": "w1"], cancelOn: []))
    }

    /// The person taps a shown notification: iOS brings the app to the screen and hands the
    /// response to the notification delegate (Apple, `UNNotificationDefaultActionIdentifier`:
    /// "the user opened your app from the notification interface").
    func tap(_ identifier: String) async -> Bool {
        application.modelBecomeActive()
        return await center.modelRespond(toNotificationWithIdentifier: identifier)
    }

    /// The person chooses a button of a shown notification on the lock screen: iOS runs the app
    /// in the background (it stays off screen) and hands the response to the delegate.
    func choose(_ actionIdentifier: String, on identifier: String) async -> Bool {
        await center.modelRespond(toNotificationWithIdentifier: identifier, actionIdentifier: actionIdentifier)
    }

    /// Waits on the real clock until `instant`, then lets the center fire what is due.
    func deliver(at instant: Date) async -> [ModelPresentation] {
        let wait = instant.timeIntervalSinceNow + 0.05
        if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
        return await center.modelDeliverDue()
    }
}

/// An app delegate with no BuzzKit code: it configures BuzzKit at launch (``onLaunch``) and
/// handles its own silent pushes (those without BuzzKit's keys).
@MainActor
final class GymAppDelegate: UIResponder, UIApplicationDelegate {
    var onLaunch: (() -> Void)?
    private(set) var ownPushes: [[AnyHashable: Any]] = []
    /// The priority a task the app started in each own push's callback would run at.
    private(set) var ownPushPriorities: [TaskPriority] = []
    private(set) var tokens: [Data] = []

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        onLaunch?()
        return true
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        tokens.append(deviceToken)
    }

    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        ownPushes.append(userInfo)
        ownPushPriorities.append(Task.currentPriority)
        completionHandler(.newData)
    }
}
