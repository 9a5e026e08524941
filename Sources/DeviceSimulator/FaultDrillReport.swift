import Foundation

/// What a fault drill found: the fleet's report (lost and duplicate notifications), how long
/// each fault took to recover from, the canary, processes that died on their own, and
/// messages left in dead-letter queues.
public struct FaultDrillReport: Sendable {
    /// One injected fault.
    public struct FaultOutcome: Sendable {
        public var fault: String
        public var injectedAt: Date
        /// Seconds until the killed process was started again / the service was back.
        public var serviceBackAfter: Double?
        /// Seconds from the fault until a canary probe posted after it had walked every stage
        /// (event → run → plan → acknowledgment → moment → "scheduled on device", and the
        /// fallback push for the force-quit phone). Nil: not recovered in time.
        public var recoveredAfter: Double?

        var line: String {
            let back = serviceBackAfter.map { String(format: "%.1f s", $0) } ?? "never"
            let recovered = recoveredAfter.map { String(format: "%.1f s", $0) } ?? "NOT RECOVERED"
            return "\(fault): back after \(back), recovered after \(recovered)"
        }
    }

    public var fleet: FleetReport
    public var faults: [FaultOutcome]
    /// A canary probe's round trip before any fault (the floor under every recovery time:
    /// the probe's moment is a few seconds after it is posted).
    public var baselineProbe: Double
    public var probes: Int
    public var probeProblems: [String]
    /// Probes that fell back because an outage held up their event or acknowledgment.
    public var lateProbes: Int
    /// Canary notifications shown beyond one per probe.
    public var canaryDuplicates: Int
    /// Each repeated probe: its phone and what the phone went through around the moment.
    public var canaryRepeats: [String] = []
    /// Canary alerts repeated under the same collapse id (displayed as one).
    public var canaryCollapsedRepeats: Int
    /// Processes that exited without the drill killing them.
    public var unexpectedExits: [String]
    /// Messages in each dead-letter queue at the end.
    public var deadLettered: [String: Int]
    public var seed: UInt64
    /// Processes that did not drain and exit 0 on the final SIGTERM.
    public var unclean: [String] = []

    func with(unclean: [String]) -> FaultDrillReport {
        var copy = self
        copy.unclean = unclean
        return copy
    }

    /// Every broken rule, as a sentence. Empty means the drill passed.
    public var violations: [String] {
        var out = fleet.violations
        out += faults.filter { $0.recoveredAfter == nil }.map { "\($0.fault): the pipeline did not recover" }
        out += probeProblems.map { "canary: \($0)" }
        if canaryDuplicates > 0 {
            out.append((["canary: \(canaryDuplicates) notification(s) shown twice"] + canaryRepeats.map { "  - " + $0 }).joined(separator: "\n"))
        }
        out += unexpectedExits.map { "process died on its own: \($0)" }
        out += deadLettered.filter { $0.value != 0 }.map { "\($0.key) holds \($0.value) message(s)" }
        out += unclean.map { "did not shut down cleanly: \($0)" }
        return out
    }

    /// The text people read.
    public var text: String {
        var lines = ["== fleet (every subscriber's plan: shown exactly once, never after a cancel, never early)", fleet.text, "",
                     String(format: "== faults (seed %llu; canary round trip without faults %.2f s)", seed, baselineProbe)]
        lines.append("fault".padding(toLength: 30, withPad: " ", startingAt: 0) + "back after   recovered after   beyond a canary round trip")
        for fault in faults {
            let back = fault.serviceBackAfter.map { String(format: "%8.1f s", $0) } ?? "   never  "
            let recovered = fault.recoveredAfter.map { String(format: "%12.1f s", $0) } ?? "  NOT RECOVERED"
            let beyond = fault.recoveredAfter.map { String(format: "%14.1f s", max(0, $0 - baselineProbe)) } ?? ""
            lines.append(fault.fault.padding(toLength: 30, withPad: " ", startingAt: 0) + back + "   " + recovered + "   " + beyond)
        }
        lines.append("canary probes: \(probes), problems: \(probeProblems.count), duplicates: \(canaryDuplicates), "
                     + "fell back because an outage held up their event or acknowledgment (as designed): \(lateProbes), "
                     + "repeats under the same collapse id: \(canaryCollapsedRepeats)")
        lines.append("dead-letter queues: " + (deadLettered.isEmpty ? "none read" : deadLettered.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")))
        lines.append("processes that died on their own: \(unexpectedExits.isEmpty ? "none" : unexpectedExits.joined(separator: "; "))")
        lines.append("clean shutdown on SIGTERM: \(unclean.isEmpty ? "all" : unclean.joined(separator: "; "))")
        let violations = self.violations
        lines.append(violations.isEmpty ? "DRILL PASSED" : "DRILL FAILED:\n  " + violations.joined(separator: "\n  "))
        return lines.joined(separator: "\n")
    }
}
