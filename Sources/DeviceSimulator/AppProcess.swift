import BuzzKit

/// One launch of a simulated app: its SDK instance and the gate its clock and network
/// freeze on. A terminated process never runs again; its frozen work is simply gone, as
/// when iOS kills an app.
final class AppProcess: Sendable {
    let gate: AppGate
    let client: BuzzKitClient

    init(gate: AppGate, client: BuzzKitClient) {
        self.gate = gate
        self.client = client
    }
}
