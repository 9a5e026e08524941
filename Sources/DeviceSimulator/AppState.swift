/// Where iOS has a simulated app (Apple's app life cycle).
public enum AppState: String, Sendable, Codable {
    /// No process: never launched since boot or install, terminated by the system, or
    /// force-quit by the person. A silent push launches it in the background, unless the
    /// person force-quit it.
    case notRunning
    /// In memory but frozen: no code runs (no timers, no sleeps, no network). iOS alone fires
    /// local notifications and shows alert pushes.
    case suspended
    /// Running without being seen: woken by a silent push (about 30 s), or just sent to the
    /// background by the person (a few seconds).
    case background
    /// On screen: code runs until the person leaves.
    case foreground

    /// Whether the app's code runs.
    var isRunning: Bool { self == .background || self == .foreground }
}
