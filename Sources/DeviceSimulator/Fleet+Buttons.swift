import Foundation

extension Fleet {
    /// The done-from-the-lock-screen windows whose run summary does not show the "Done" button
    /// on a step (`actions`), or whose run is still open: the person chose Done on the lock
    /// screen, so `$push.action` and `workout.completed` must have reached the server from an
    /// app iOS ran in the background. (The fleet's workflow ends with the reminder, so its run
    /// is complete by then; a later step being cancelled by Done is covered by the API tests.)
    /// Events go through the trigger queue, so each summary is read until it shows the button,
    /// for up to 15 s.
    func doneNotRecorded(_ backend: BackendClient, _ report: FleetReport) async -> [String] {
        var missing: [String] = []
        for outcome in report.outcomes where outcome.behaviour == .doneFromLockScreen {
            guard let shown = outcome.shownFirst.first, let runId = shown.id.split(separator: "/").first else { continue }
            let deadline = Date().addingTimeInterval(15)
            var recorded = false
            while !recorded, Date() < deadline {
                if let summary = try? await backend.call("GET", "/v1/runs/\(runId)").json as? [String: Any] {
                    let steps = summary["steps"] as? [[String: Any]] ?? []
                    let buttons = steps.flatMap { ($0["actions"] as? [[String: Any]] ?? []).compactMap { $0["actionId"] as? String } }
                    let open = ["running", "waiting"].contains(summary["status"] as? String ?? "")
                    recorded = buttons.contains(Self.doneAction) && !open
                }
                if !recorded { try? await Task.sleep(nanoseconds: 250_000_000) }
            }
            if !recorded { missing.append(outcome.window.workoutId) }
        }
        return missing
    }
}
