import BuzzKitOnAppleModel
import UIKit

/// One launch of the app: its `UIApplication` (the Apple model's), the SDK instance its
/// `didFinishLaunching` configured, and the gate that freezes the launch's clock and network
/// while iOS suspends it.
final class AppProcess: Sendable {
    let gate: AppGate
    let application: UIApplication
    /// Held here: UIKit holds the app delegate weakly in the model (as `unowned(unsafe)` on iOS,
    /// where the app's `@main` keeps it).
    let delegate: SimulatedAppDelegate
    let client: BuzzKitClient

    init(gate: AppGate, application: UIApplication, delegate: SimulatedAppDelegate, client: BuzzKitClient) {
        self.gate = gate
        self.application = application
        self.delegate = delegate
        self.client = client
    }
}
