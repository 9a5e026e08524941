import Foundation

/// What the fleet saw, per behaviour, and the violations of the delivery rules:
/// every non-cancelled plan is shown exactly once per subscriber, nothing is shown after a
/// cancel, nothing is shown early.
public struct FleetReport: Sendable, Codable {
    /// The outcome for one subscriber's plan.
    public struct Outcome: Sendable, Codable {
        public var subscriberId: String
        public var behaviour: Behaviour
        /// The moment the plan was for.
        public var moment: Date
        /// Whether the person cancelled (tracked the cancelling event) before the moment.
        public var cancelled: Bool
        /// When each notification was shown, and how (`local` or `remote`).
        public var shown: [Shown]
        /// The phone kept the plan, acknowledged it, then lost it to the 64-pending limit.
        public var lostAfterAcknowledging: Bool

        public struct Shown: Sendable, Codable {
            public var at: Date
            public var kind: String
            /// The notification's id (`<runId>/<step>`, a fallback `<runId>/<step>/fallback`).
            public var id: String = ""
            /// Which of the subscriber's phones showed it.
            public var device: Int = 0
        }

        /// Shown more than once: a local notification and its fallback both, or the same
        /// notification twice on one phone. (One fallback push shown on each of a person's
        /// phones is one notification: a push goes to every device.)
        var shownTwice: Bool {
            if Set(shown.map { $0.id.hasSuffix("/fallback") ? String($0.id.dropLast("/fallback".count)) + "#remote" : $0.id }).count > 1 { return true }
            return Dictionary(grouping: shown, by: { "\($0.device)|\($0.id)" }).values.contains { $0.count > 1 }
        }
    }

    public var outcomes: [Outcome]
    /// Seconds a notification may be shown before its moment (fire-time rounding).
    public var earlyTolerance: TimeInterval = 0.05
    /// Plans that reached phones per second, from the first event posted to the last plan.
    public var plansPerSecond: Double?
    /// Alerts that repeated one a phone already showed under the same collapse id (shown once).
    public var collapsedRepeats = 0

    public init(outcomes: [Outcome]) { self.outcomes = outcomes }

    public struct Row: Sendable {
        public var behaviour: Behaviour
        public var subscribers = 0
        public var exactlyOnce = 0
        public var twice = 0
        public var missed = 0
        public var documentedMisses = 0
        public var afterCancel = 0
        public var early = 0
        public var lateness: [Double] = []
    }

    /// Rows per behaviour (in the enum's order).
    public var rows: [Row] {
        var rows: [Behaviour: Row] = [:]
        for outcome in outcomes {
            var row = rows[outcome.behaviour] ?? Row(behaviour: outcome.behaviour)
            row.subscribers += 1
            if outcome.cancelled {
                if !outcome.shown.isEmpty { row.afterCancel += 1 }
            } else {
                if outcome.shown.isEmpty {
                    if outcome.lostAfterAcknowledging { row.documentedMisses += 1 } else { row.missed += 1 }
                } else if outcome.shownTwice {
                    row.twice += 1
                } else {
                    row.exactlyOnce += 1
                }
            }
            for shown in outcome.shown {
                let late = shown.at.timeIntervalSince(outcome.moment)
                if late < -earlyTolerance { row.early += 1 }
                row.lateness.append(late)
            }
            rows[outcome.behaviour] = row
        }
        return Behaviour.allCases.compactMap { rows[$0] }
    }

    /// Each broken rule, as a sentence.
    public var violations: [String] {
        rows.flatMap { row -> [String] in
            var out: [String] = []
            if row.twice > 0 { out.append("\(row.behaviour.rawValue): \(row.twice) subscriber(s) were shown the plan more than once") }
            if row.missed > 0 { out.append("\(row.behaviour.rawValue): \(row.missed) subscriber(s) were never shown their plan") }
            if row.afterCancel > 0 { out.append("\(row.behaviour.rawValue): \(row.afterCancel) subscriber(s) were shown a notification after cancelling") }
            if row.early > 0 { out.append("\(row.behaviour.rawValue): \(row.early) notification(s) were shown before their moment") }
            return out
        }
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// The table people read.
    public var text: String {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0 * 1000) } ?? "-" }
        var lines = [pad("behaviour", 12) + lpad("subscribers", 12) + lpad("once", 7) + lpad("twice", 7) + lpad("missed", 8)
                     + lpad("lost*", 7) + lpad("after-cancel", 14) + lpad("early", 7) + lpad("late p50", 11) + lpad("late p99", 11)]
        for row in rows {
            lines.append(pad(row.behaviour.rawValue, 12) + lpad("\(row.subscribers)", 12) + lpad("\(row.exactlyOnce)", 7) + lpad("\(row.twice)", 7)
                         + lpad("\(row.missed)", 8) + lpad("\(row.documentedMisses)", 7) + lpad("\(row.afterCancel)", 14) + lpad("\(row.early)", 7)
                         + lpad(ms(Self.percentile(row.lateness, 0.5)), 11) + lpad(ms(Self.percentile(row.lateness, 0.99)), 11))
        }
        lines.append("* lost: acknowledged, then dropped by the phone's 64-pending limit (documented; not a violation)")
        if collapsedRepeats > 0 {
            lines.append("repeats under the same collapse id (displayed as one notification): \(collapsedRepeats)")
        }
        if let plansPerSecond { lines.append(String(format: "plans reached phones at %.0f windows/s (events posted → last plan received)", plansPerSecond)) }
        let remote = outcomes.flatMap { o in o.shown.filter { $0.kind == "remote" }.map { $0.at.timeIntervalSince(o.moment) } }
        if let last = remote.max() {
            lines.append(String(format: "fallbacks: %d shown, the last %.2f s after the moment; lateness of all shown p99 %@",
                                remote.count, last, ms(Self.percentile(rows.flatMap(\.lateness), 0.99))))
        }
        let violations = self.violations
        lines.append(violations.isEmpty ? "violations: none" : "violations:\n  " + violations.joined(separator: "\n  "))
        return lines.joined(separator: "\n")
    }
}
