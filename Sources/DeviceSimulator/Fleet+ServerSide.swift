import BuzzKitWire
import Foundation

extension Fleet {
    /// Adds the server's side to the trace of each window judged a violation: the run whose
    /// local step has the window's moment, as `GET /v1/runs` shows it. So a reminder never
    /// shown tells whether the server sent its fallback or believed a phone's acknowledgment,
    /// and which plan id to look for in the phones' lines.
    func addServerSide(to report: inout FleetReport, _ backend: BackendClient) async {
        for index in report.outcomes.indices where report.outcomes[index].trace != nil {
            let window = report.outcomes[index].window
            report.outcomes[index].trace! += await Self.serverLines(for: window, backend)
        }
    }

    /// The subscriber's runs (a crowded subscriber has 72, one page), described for `window`;
    /// a line saying why when the API did not answer.
    static func serverLines(for window: FleetWindow, _ backend: BackendClient) async -> [String] {
        let answer = try? await backend.call("GET", "/v1/runs", query: ["subscriberId": window.subscriberId, "limit": "100"])
        guard let answer, answer.status == 200, let runs = (answer.json as? [String: Any])?["runs"],
              let data = try? JSONSerialization.data(withJSONObject: runs),
              let summaries = try? JSONDecoder().decode([RunSummary].self, from: data) else {
            return ["server: the runs of \(window.subscriberId) could not be read (status \(answer.map { String($0.status) } ?? "none"))"]
        }
        return serverLines(for: window, runs: summaries)
    }

    /// One line for each run whose local step's moment is the window's: the plan's local id,
    /// how many devices it was sent to, whether and when an acknowledgment was counted, the
    /// fallback's decision with its reason, and every push with APNs' answer (times from the
    /// window's moment, as the phones' lines are).
    static func serverLines(for window: FleetWindow, runs: [RunSummary]) -> [String] {
        func relative(_ date: Date) -> String { String(format: "%+.2f s", date.timeIntervalSince(window.moment)) }
        let lines = runs.compactMap { run -> String? in
            guard let step = run.steps.first(where: { ($0.local.map { abs($0.moment.timeIntervalSince(window.moment)) } ?? 1) < 0.5 }),
                  let local = step.local else { return nil }
            var line = "server: run \(run.id) \(run.status.rawValue): plan \(local.localId) sent to \(local.planSentTo) device(s), "
            line += local.acknowledgedAt.map { "acknowledged at \(relative($0))" } ?? "not acknowledged"
            if let fallback = local.fallback { line += "; fallback \(fallback.sent ? "sent" : "not sent") (\(fallback.reason))" }
            let pushes = step.deliveries.map { "\($0.kind) to …\($0.tokenSuffix) \($0.status) at \(relative($0.at))" }
            return line + "; pushes: " + (pushes.isEmpty ? "none" : pushes.joined(separator: ", "))
        }
        return lines.isEmpty ? ["server: no run of \(window.subscriberId) has a local step at the window's moment"] : lines
    }
}
