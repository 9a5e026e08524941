#if canImport(UIKit)
import Foundation
import Network
import UIKit

/// Tells the SDK what iOS does to the app: `didBecomeActiveNotification` (launched or
/// returned to by the person), `didEnterBackgroundNotification` (suspended a few seconds
/// later; a background task asks for the time the SDK needs to send and hold back), and
/// `NWPathMonitor` reporting a usable network again. Installed by ``BuzzKit/configure(_:)``.
final class ApplicationLifecycleObserver: @unchecked Sendable {
    private weak var client: BuzzKitClient?
    private var tokens: [NSObjectProtocol] = []
    private let monitor = NWPathMonitor()
    private var wasSatisfied = true

    init(client: BuzzKitClient) {
        self.client = client
        let center = NotificationCenter.default
        tokens.append(center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { [weak self] _ in
            guard let client = self?.client else { return }
            Task { await client.applicationDidBecomeActive() }
        })
        tokens.append(center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { [weak self] _ in
            guard let client = self?.client else { return }
            // iOS: about 30 s of background time until the expiration handler runs.
            var task = UIBackgroundTaskIdentifier.invalid
            task = UIApplication.shared.beginBackgroundTask(withName: "BuzzKit") { UIApplication.shared.endBackgroundTask(task) }
            Task {
                await client.applicationDidEnterBackground()
                await MainActor.run { UIApplication.shared.endBackgroundTask(task) }
            }
        })
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self else { return }
            let satisfied = path.status == .satisfied
            defer { self.wasSatisfied = satisfied }
            guard satisfied, !self.wasSatisfied, let client = self.client else { return }
            Task { await client.networkDidBecomeAvailable() }
        }
        monitor.start(queue: DispatchQueue(label: "buzzkit.network"))
    }

    deinit {
        monitor.cancel()
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
#endif
