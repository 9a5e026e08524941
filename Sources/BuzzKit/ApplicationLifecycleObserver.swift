#if canImport(UIKit) && !NO_APPLE_FRAMEWORKS
import Foundation
import Network
import UIKit

/// Tells the SDK what iOS does to the app: `didBecomeActiveNotification` (launched or
/// returned to by the person), `didEnterBackgroundNotification` (suspended a few seconds
/// later; a background task asks for the time the SDK needs to send and hold back), and
/// `NWPathMonitor` reporting a usable network again, and a changed time zone or clock. Installed by ``BuzzKit/configure(_:)``.
/// Not in app extensions: it needs `UIApplication.shared` (background tasks).
@available(iOSApplicationExtension, unavailable)
final class ApplicationLifecycleObserver: @unchecked Sendable {
    private weak var client: BuzzKitClient?
    private var tokens: [NSObjectProtocol] = []
    private let monitor: NWPathMonitor
    private let notifications: NotificationCenter
    private let wasSatisfied = Locked(true)

    init(client: BuzzKitClient, environment: ApplicationEnvironment) {
        self.client = client
        monitor = environment.pathMonitor()
        notifications = environment.notifications
        let center = environment.notifications
        let application = environment.pushEvents.application
        tokens.append(center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { [weak self] _ in
            guard let client = self?.client else { return }
            Task { await client.applicationDidBecomeActive() }
        })
        // The zone or the clock changed (a flight, Settings, midnight or a carrier time update):
        // `NSSystemTimeZoneDidChange` and `significantTimeChangeNotification`.
        for name in [Notification.Name.NSSystemTimeZoneDidChange, UIApplication.significantTimeChangeNotification] {
            tokens.append(center.addObserver(forName: name, object: nil, queue: .main) { [weak self] _ in
                guard let client = self?.client else { return }
                NSTimeZone.resetSystemTimeZone()
                Task { await client.timeZoneDidChange() }
            })
        }
        tokens.append(center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { [weak self] _ in
            guard let client = self?.client else { return }
            // Posted on the main queue. iOS: about 30 s of background time until the
            // expiration handler runs; the SDK needs at most its background budget.
            MainActor.assumeIsolated { Self.inBackgroundTask(application()) { await client.applicationDidEnterBackground() } }
        })
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self else { return }
            let satisfied = path.status == .satisfied
            let cameBack = self.wasSatisfied.withLock { was in defer { was = satisfied }; return satisfied && !was }
            guard cameBack, let client = self.client else { return }
            // Inside a background task: the network may come back while a silent push has the
            // app awake, and iOS suspends it once that push is answered; without a task of its
            // own this wake would stop halfway, with plans it put back in the center and their
            // acknowledgments not sent (a 10,000-phone fleet run showed one reminder twice so).
            Task { @MainActor in Self.inBackgroundTask(application()) { await client.networkDidBecomeAvailable() } }
        }
        monitor.start(queue: DispatchQueue(label: "buzzkit.network"))
    }

    /// Runs `work` (the SDK's work for a lifecycle change) inside a background task, so iOS
    /// does not suspend the app before it is done.
    @MainActor
    private static func inBackgroundTask(_ application: UIApplication, _ work: @escaping @Sendable () async -> Void) {
        let task = BackgroundTask(application)
        task.identifier = application.beginBackgroundTask(withName: "BuzzKit") { task.end() }
        Task {
            await work()
            await MainActor.run { task.end() }
        }
    }

    deinit {
        monitor.cancel()
        for token in tokens { notifications.removeObserver(token) }
    }
}

/// A background task's identifier, ended once (by the SDK finishing or by iOS's expiration).
@available(iOSApplicationExtension, unavailable)
@MainActor
private final class BackgroundTask: Sendable {
    private let application: UIApplication
    var identifier = UIBackgroundTaskIdentifier.invalid

    init(_ application: UIApplication) {
        self.application = application
    }

    func end() {
        guard identifier != .invalid else { return }
        application.endBackgroundTask(identifier)
        identifier = .invalid
    }
}
#endif
