import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation

/// The SDK's clock in a simulated app: the phone's real clock and zone, but a timer only
/// fires while the app runs. A deadline that passes while the app is suspended fires when it
/// runs again (when iOS hands it the next wake), never earlier.
final class AppClock: Clock, @unchecked Sendable {
    let system: SystemClock
    let gate: AppGate

    init(system: SystemClock, gate: AppGate) {
        self.system = system
        self.gate = gate
    }

    var now: Date { system.now }
    var timeZone: TimeZone { system.timeZone }

    func sleep(until deadline: Date) async throws {
        try await system.sleep(until: deadline)
        while !gate.isRunning {
            try Task.checkCancellation()
            await gate.whenRunning()
        }
        try Task.checkCancellation()
    }
}
