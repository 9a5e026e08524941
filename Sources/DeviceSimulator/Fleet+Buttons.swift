import Foundation

extension Fleet {
    /// The done-from-the-lock-screen windows whose run summary does not show the "Done" button
    /// on a step (`actions`), or whose run is still open: the person chose Done on the lock
    /// screen, so `$push.action` and `workout.completed` must have reached the server from an
    /// app iOS ran in the background. (The fleet's workflow ends with the reminder, so its run
    /// is complete by then; a later step being cancelled by Done is covered by the API tests.)
    /// Events go through the trigger queue, so the summaries not showing it yet are read again
    /// until all do, for up to 15 s in all. A Done whose events an outage refused before the app
    /// was suspended is not judged: they wait on the phone for its next run; nor is a window
    /// whose notification came after the person stopped waiting (no Done was chosen).
    func doneNotRecorded(_ backend: BackendClient, _ report: FleetReport) async -> [String] {
        var waiting: [(workoutId: String, runId: String)] = report.outcomes.compactMap { outcome in
            guard outcome.behaviour == .doneFromLockScreen, outcome.window.eventsHeldByOutage != true,
                  outcome.window.buttonCouldBeChosen, let shown = outcome.shownFirst.first,
                  let runId = shown.id.split(separator: "/").first else { return nil }
            return (outcome.window.workoutId, String(runId))
        }
        let deadline = Date().addingTimeInterval(15)
        while !waiting.isEmpty {
            var still: [(workoutId: String, runId: String)] = []
            for window in waiting where !(await Self.summaryShowsDone(window.runId, backend)) { still.append(window) }
            waiting = still
            guard !waiting.isEmpty, Date() < deadline else { break }
            try? await Task.sleep(nanoseconds: 500_000_000)
        }
        return waiting.map(\.workoutId)
    }

    /// Whether the run's summary shows Done chosen on a step and the run is no longer open.
    static func summaryShowsDone(_ runId: String, _ backend: BackendClient) async -> Bool {
        guard let summary = try? await backend.call("GET", "/v1/runs/\(runId)").json as? [String: Any] else { return false }
        let steps = summary["steps"] as? [[String: Any]] ?? []
        let buttons = steps.flatMap { ($0["actions"] as? [[String: Any]] ?? []).compactMap { $0["actionId"] as? String } }
        return buttons.contains(doneAction) && !["running", "waiting"].contains(summary["status"] as? String ?? "")
    }
}
