/// How a simulated phone (or its person) behaves.
public enum Behaviour: String, Sendable, CaseIterable, Codable {
    /// Receives the plan, schedules it, acknowledges; the local notification fires.
    case healthy
    /// Force-quit: iOS does not deliver silent pushes, so no plan, no acknowledgment; the
    /// server's fallback alert is what the person sees.
    case forceQuit = "force-quit"
    /// Low Power Mode: silent pushes arrive late (possibly after the moment).
    case lowPower = "low-power"
    /// Offline for a while after the plan arrives: the acknowledgment is flushed later.
    case offline
    /// The person completes the workout before the moment: the app tracks the cancelling
    /// event, the phone removes the plan at once, the server cancels the run.
    case completes
    /// A subscriber with two phones: one acknowledges, the other is force-quit.
    case twoDevices = "two-devices"
}
