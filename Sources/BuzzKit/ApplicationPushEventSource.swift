#if canImport(UIKit) && canImport(UserNotifications) && !NO_APPLE_FRAMEWORKS
import BuzzKitWire
import Foundation
import UIKit
@preconcurrency import UserNotifications

/// The app's push events on iOS, used by automatic push handling.
///
/// ``attach(_:)`` runs inside ``BuzzKit/configure(_:)``, synchronously, on the main thread:
/// it installs a ``NotificationResponseForwarder`` as `UNUserNotificationCenter`'s delegate
/// (chained to the app's earlier delegate; iOS requires the delegate before
/// `application(_:didFinishLaunchingWithOptions:)` returns, or a tap that launched the app is
/// lost) and calls `registerForRemoteNotifications()`.
///
/// The app delegate's push callbacks reach it through ``AppDelegateHook``, which `configure`
/// installs on the app delegate's class: the app writes no delegate code. (An app may still
/// call ``receive(userInfo:)`` and ``receive(deviceToken:)`` itself, with automatic handling
/// off.)
/// A push that arrives before `configure` waits for it, up to 10 s (``PushEventRelay``).
/// Not in app extensions, which have no `UIApplication.shared` and receive no pushes; an
/// extension configures BuzzKit with ``BuzzKit/configure(_:ports:)`` and its own ports.
@available(iOSApplicationExtension, unavailable)
public final class ApplicationPushEventSource: PushEventSource, @unchecked Sendable {
    /// The app's single source: `UIApplication.shared` and `UNUserNotificationCenter.current()`.
    public static let shared = ApplicationPushEventSource(center: .current(), application: { .shared })

    /// The relay every event goes through.
    public let relay = PushEventRelay(waitLimit: 10)
    /// The notification center whose delegate this source installs.
    let center: UNUserNotificationCenter
    /// The application (read on the main actor).
    let application: @MainActor @Sendable () -> UIApplication
    /// The lifecycle observer of the client last configured over this source.
    let lifecycle = Locked<ApplicationLifecycleObserver?>(nil)
    /// The notification center delegate, made once, on the main actor.
    @MainActor private var forwarder: NotificationResponseForwarder?
    /// The source of each application that attached one (the app delegate hook finds it by the
    /// `UIApplication` UIKit passes; on iOS there is one).
    @MainActor private static var sources: [ObjectIdentifier: WeakSource] = [:]
    /// How many entries ``sources`` may hold before the released ones are dropped: twice what
    /// was left by the last pruning, so pruning costs a constant per attach however many live
    /// sources there are (the simulator's thousands of phones; on iOS there is one).
    @MainActor private static var pruneAt = 256

    private struct WeakSource {
        weak var source: ApplicationPushEventSource?
    }

    /// A source for `application` and `center`. Apps use ``shared``; the device simulator makes
    /// one per simulated phone over the Apple model.
    public init(center: UNUserNotificationCenter, application: @escaping @MainActor @Sendable () -> UIApplication) {
        self.center = center
        self.application = application
    }

    /// The source serving `application`: the one attached for it, else ``shared``.
    @MainActor
    static func serving(_ application: UIApplication) -> ApplicationPushEventSource {
        guard let source = sources[ObjectIdentifier(application)]?.source, source.application() === application else { return shared }
        return source
    }

    /// Routes the app's push events to `handler`, installs the notification delegate and
    /// registers for remote notifications.
    public func attach(_ handler: any PushEventHandling) {
        relay.attach(handler)
        // iOS wants the delegate before launch finishes: `configure` runs on the main thread
        // inside `application(_:didFinishLaunchingWithOptions:)`, so this happens right here.
        if Thread.isMainThread {
            MainActor.assumeIsolated { install() }
        } else {
            Task { @MainActor in self.install() }
        }
    }

    /// Installs the forwarder as the notification center's delegate (chained to the app's)
    /// and asks iOS for the device token (`registerForRemoteNotifications()`; the token comes
    /// back through the app delegate, at every launch).
    @MainActor
    private func install() {
        // Once a process: attaching again (`configure` attaches, and so does the client's
        // `start()`) must not wrap a delegate the app or another SDK set since, which may
        // itself call BuzzKit's: that would make a loop. A delegate set after `configure`
        // replaces BuzzKit's, as iOS has it.
        let application = application()
        if Self.sources.count >= Self.pruneAt {
            Self.sources = Self.sources.filter { $0.value.source != nil }
            Self.pruneAt = max(256, 2 * Self.sources.count)
        }
        Self.sources[ObjectIdentifier(application)] = WeakSource(source: self)
        if forwarder == nil {
            let installed = NotificationResponseForwarder(relay: relay)
            forwarder = installed
            let previous = center.delegate
            installed.next = previous === installed ? nil : previous
            center.delegate = installed
        }
        application.registerForRemoteNotifications()
    }

    /// Stops routing to `handler`.
    public func detach(_ handler: any PushEventHandling) {
        relay.detach(handler)
    }

    /// A remote notification from `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    /// iOS gives the app about 30 s for it; the SDK answers within
    /// ``Configuration/backgroundBudget``.
    nonisolated(nonsending) public func receive(userInfo: [AnyHashable: Any]) async -> UIBackgroundFetchResult {
        // iOS's 30 s run from here, the wait for `configure` included.
        let receivedAt = Date()
        guard let payload = try? JSONValue.members(userInfo: userInfo) else { return .noData }
        return await receive(members: payload, receivedAt: receivedAt)
    }

    /// A remote notification already read into JSON members, which arrived at `receivedAt`.
    func receive(members: [String: JSONValue], receivedAt: Date) async -> UIBackgroundFetchResult {
        guard let outcome = await relay.deliverRemoteNotification(payload: members, receivedAt: receivedAt) else { return .noData }
        switch outcome {
        case .newData: return .newData
        case .noData: return .noData
        case .failed: return .failed
        }
    }

    /// The token from `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    public func receive(deviceToken: Data) async {
        await relay.updateDeviceToken(PushRegistration.hexToken(deviceToken))
    }
}
#endif
