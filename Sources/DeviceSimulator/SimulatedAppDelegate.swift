import BuzzKitOnAppleModel
import Foundation
import UIKit

/// The app delegate of the simulated phones' app: an app that uses BuzzKit the way the README
/// says, with automatic push handling and no push code of its own. At launch it configures
/// BuzzKit over the phone's environment (``ApplicationEnvironment/makeClient(_:ports:)``, what
/// `BuzzKit.configure` does with the app's own) and starts it beside what launched the app.
///
/// Its silent-push and token callbacks are the protocol's defaults (none): BuzzKit's hook gives
/// its class BuzzKit's, as on iOS.
@MainActor
final class SimulatedAppDelegate: UIResponder, UIApplicationDelegate {
    private let configure: @MainActor () -> BuzzKitClient?
    private let prepare: @Sendable (BuzzKitClient) async -> Void
    private(set) var client: BuzzKitClient?
    /// The simulator's preparation of the client (its activity observer), which the start
    /// follows; the simulated person acts only after it, so nothing the SDK reports is missed.
    private(set) var prepared: Task<Void, Never>?

    /// A delegate whose launch configures BuzzKit with `configure`; `prepare` runs before the
    /// start (the simulator's view into the SDK: its activity observer).
    init(configure: @escaping @MainActor () -> BuzzKitClient?, prepare: @escaping @Sendable (BuzzKitClient) async -> Void) {
        self.configure = configure
        self.prepare = prepare
        super.init()
    }

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let client = configure()
        self.client = client
        // As `BuzzKit.configure` does: the start runs beside what launched the app (a push,
        // a tap), which iOS hands over without waiting for it.
        let prepare = self.prepare
        let prepared = Task { if let client { await prepare(client) } }
        self.prepared = prepared
        Task {
            guard let client else { return }
            await prepared.value
            await client.start()
        }
        return client != nil
    }
}
