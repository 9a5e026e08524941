import Foundation

/// How the ``WindowCompleter`` files the runs of windows decided outside them under
/// `completed` (`BUZZKIT_WINDOW_COMPLETION_*`).
public struct CompletionSettings: Sendable, Equatable, EnvironmentSettings {
    /// Seconds a settled window waits before its run is filed
    /// (`BUZZKIT_WINDOW_COMPLETION_DELAY_SECONDS`, default 10): the write leaves the crowded
    /// second of a 07:00 burst, and the run reads as decided from the moment on (every reader
    /// folds the decision in). Until then `GET /v1/runs?status=` still files the run under `waiting`.
    public var delaySeconds: Double = 10
    /// Runs filed per statement (`BUZZKIT_WINDOW_COMPLETION_BATCH`, default 500).
    public var batch = 500
    /// Seconds between two full batches while a backlog drains
    /// (`BUZZKIT_WINDOW_COMPLETION_PAUSE_SECONDS`, default 0.02).
    public var pauseSeconds: Double = 0.02
    /// The share of its time the completer works while the moment's work waits
    /// (`BUZZKIT_WINDOW_COMPLETION_SHARE`, default 0.1): timers due and not yet claimed, or
    /// `fallback-check` messages ready. Filing decided runs is bookkeeping;
    /// deciding and sending the windows still due comes first.
    public var share: Double = 0.1

    public init() {}

    public static var settings: [Setting<Self>] {
        [.number("BUZZKIT_WINDOW_COMPLETION_DELAY_SECONDS", \.delaySeconds, in: 0...3600, unit: "seconds"),
         .number("BUZZKIT_WINDOW_COMPLETION_BATCH", \.batch, in: 1...10_000),
         .number("BUZZKIT_WINDOW_COMPLETION_PAUSE_SECONDS", \.pauseSeconds, in: 0...60, unit: "seconds"),
         .number("BUZZKIT_WINDOW_COMPLETION_SHARE", \.share, in: 0.01...1)]
    }
}
