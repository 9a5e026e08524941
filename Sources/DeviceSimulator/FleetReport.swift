import BuzzKitWire
import Foundation

/// What the fleet saw, per behaviour, and the violations of the delivery rules: every
/// expected notification is shown exactly once, at its moment, to the person it is for;
/// nothing is shown after a cancel or after its person signed out. What nobody could have
/// prevented (a server cancel while the phone was offline through the moment) is counted
/// apart.
public struct FleetReport: Sendable, Codable {
    /// The outcome for one expected notification.
    public struct Outcome: Sendable, Codable {
        public var window: FleetWindow
        /// Every time a phone showed it.
        public var shown: [Shown]
        /// A phone of the subscriber acknowledged a plan and later lost it without telling the
        /// server (`$local.released`): the server then sends no fallback.
        public var lostAfterAcknowledging: Bool
        /// For a broken rule: what the SDK and the person did on the subscriber's phones (and
        /// any other phone that showed it), times relative to the moment.
        public var trace: [String]?

        public var subscriberId: String { window.subscriberId }
        public var behaviour: Behaviour { window.behaviour }

        public struct Shown: Sendable, Codable {
            public var at: Date
            public var kind: String
            /// The notification's id (`<runId>/<step>`, a fallback `<runId>/<step>/fallback`).
            public var id: String = ""
            /// Which phone showed it (the fleet's phone number).
            public var device: Int = 0
            /// Who was signed in on that phone when it was shown.
            public var owner: String = ""
        }

        /// Shown more than once: a local notification and its fallback both, or the same
        /// notification twice on one phone. (One fallback push shown on each of a person's
        /// phones is one notification: a push goes to every device. A snoozed reminder shown
        /// again is the person's choice, judged apart: ``snoozedAgain``.)
        var shownTwice: Bool {
            let first = shownFirst
            if Set(first.map { LocalPlan.localId(ofFallback: $0.id).map { $0 + "#remote" } ?? $0.id }).count > 1 { return true }
            return Dictionary(grouping: first, by: { "\($0.device)|\($0.id)" }).values.contains { $0.count > 1 }
        }

        /// The showings of the notification itself (not of a snooze).
        var shownFirst: [Shown] { shown.filter { !Self.isSnooze($0.id) } }
        /// The showings of a snooze (`<localId>/snooze/<n>`).
        var snoozedAgain: [Shown] { shown.filter { Self.isSnooze($0.id) } }

        static func isSnooze(_ id: String) -> Bool { id.contains("/snooze/") }
    }

    public var outcomes: [Outcome]
    /// Seconds a notification may be shown before its moment (fire-time rounding).
    public var earlyTolerance: TimeInterval = 0.05
    /// The snooze button's duration (a snoozed reminder is not shown again sooner).
    public var snoozeSeconds: TimeInterval = 0
    /// Done-from-the-lock-screen windows whose run summary does not show the button chosen.
    public var doneNotRecorded: [String] = []
    /// Plans that reached phones per second, from the first event posted to the last plan.
    public var plansPerSecond: Double?
    /// Alerts that repeated one a phone already showed under the same collapse id (shown once).
    public var collapsedRepeats = 0
    /// What iOS and APNs did to pushes (throttled, discarded offline, expired) and how long the
    /// SDK took to answer silent pushes.
    public var platform = PlatformCounts()
    /// Travellers whose local notification fired but whose acknowledgment the server does not
    /// hold: its fallback would show the notification again at the server's moment.
    public var travellersUnacknowledged: [String] = []
    /// People's scripts that had not finished a minute after the run (a simulator fault).
    public var stuckScripts: [String] = []
    /// The last entries of the traces of the phones whose wakes took longest (when one passed
    /// the SDK's 25 s) and of the phones of stuck scripts (times relative to the run's start).
    public var diagnosticTraces: [String] = []
    /// How fast the server answered the phones' requests, per route.
    public var serverAnswers = ServerAnswers()

    public init(outcomes: [Outcome]) { self.outcomes = outcomes }

    /// Pushes the simulated iOS and APNs dropped or delayed, and the SDK's answers to iOS.
    public struct PlatformCounts: Sendable, Codable {
        public var throttled = 0
        public var discardedOffline = 0
        public var expiredOffline = 0
        public var budgetOverruns = 0
        /// iOS's rules the app broke on the Apple model (a completion handler called twice or
        /// off the main thread, a background task not ended): each would crash or kill an app.
        public var appleRulesBroken: [String] = []
        /// Taps by people on shown notifications, and the `$push.opened` events the SDKs queued.
        public var taps = 0
        public var opensTracked = 0
        /// Silent pushes iOS throttled, kept, and handed over when the app next ran.
        public var throttledDelivered = 0
        /// Seconds from a silent push's hand-over to the SDK's answer: p50, p99, the longest.
        public var wakeP50: TimeInterval = 0
        public var wakeP99: TimeInterval = 0
        public var longestWake: TimeInterval = 0
        /// p99 of the seconds alerts waited between arriving from APNs and the simulator
        /// handling them (the simulator's own load, not the server's; shown times use arrival).
        public var alertHandOverP99: TimeInterval = 0
        /// How late the simulator's own timers woke (p99, the latest): the simulator's load, not
        /// iOS's. A phone's wake resuming on its SDK's actor was measured waiting longer.
        public var schedulerLateP99: TimeInterval = 0
        public var schedulerLateMax: TimeInterval = 0
        /// What the SDKs did: plans released, put back, held before suspension, changed by a sync.
        public var released = 0
        public var restored = 0
        public var held = 0
        public var synced = 0
        /// Plans taken out at their last call with the acknowledgment on its way, shown when
        /// the answer came, acknowledgments the server answered late, and of those, after the
        /// phone's copy had fired (each a reminder shown twice: a violation).
        public var lastCalls = 0
        public var shownAfterAnswer = 0
        public var answeredLate = 0
        public var lateAfterShown = 0
        /// Reads and writes of the apps' protected files refused on phones not unlocked since
        /// they restarted.
        public var protectedRefusals = 0
        /// Buttons people chose on the Apple model, the `$push.action` events the SDKs queued
        /// for them, and the snoozes they scheduled.
        public var actionsChosen = 0
        public var actionsTracked = 0
        public var snoozes = 0
    }

    public struct Row: Sendable {
        public var behaviour: Behaviour
        public var windows = 0
        public var exactlyOnce = 0
        public var twice = 0
        public var missed = 0
        public var documentedMisses = 0
        public var afterCancel = 0
        public var afterLogout = 0
        public var wrongPerson = 0
        public var unpreventable = 0
        public var notJudged = 0
        public var early = 0
        public var lateness: [Double] = []
        /// Snoozed reminders shown again exactly once, not before the snooze ended; and those
        /// shown again never, twice or early (a violation).
        public var snoozedOnce = 0
        public var snoozeBroken = 0
    }

    /// Rows per behaviour (in the enum's order).
    public var rows: [Row] {
        var rows: [Behaviour: Row] = [:]
        for outcome in outcomes {
            var row = rows[outcome.behaviour] ?? Row(behaviour: outcome.behaviour)
            row.windows += 1
            let window = outcome.window
            switch window.expectation {
            case .never:
                if !outcome.shown.isEmpty {
                    if window.neverBecause == "logout" { row.afterLogout += 1 } else { row.afterCancel += 1 }
                }
            case .unpreventable:
                if !outcome.shown.isEmpty { row.unpreventable += 1 }
            case .notJudged:
                row.notJudged += 1
            case .once:
                if outcome.shown.isEmpty {
                    if outcome.lostAfterAcknowledging { row.documentedMisses += 1 } else { row.missed += 1 }
                } else if outcome.shownTwice {
                    row.twice += 1
                } else {
                    row.exactlyOnce += 1
                }
                if outcome.behaviour == .snoozer, outcome.window.buttonCouldBeChosen, let first = outcome.shownFirst.first {
                    let again = outcome.snoozedAgain
                    let onTime = again.allSatisfy { $0.at.timeIntervalSince(first.at) >= snoozeSeconds - earlyTolerance }
                    if again.count == 1 && onTime { row.snoozedOnce += 1 } else { row.snoozeBroken += 1 }
                }
                for shown in outcome.shownFirst {
                    let late = shown.at.timeIntervalSince(window.moment)
                    if late < -earlyTolerance { row.early += 1 }
                    row.lateness.append(late)
                }
            }
            if window.expectation != .unpreventable, outcome.shown.contains(where: { $0.owner != window.subscriberId }) { row.wrongPerson += 1 }
            rows[outcome.behaviour] = row
        }
        return Behaviour.allCases.compactMap { rows[$0] }
    }

    /// Each broken rule, as a sentence.
    public var violations: [String] {
        var out = rows.flatMap { row -> [String] in
            var out: [String] = []
            let name = row.behaviour.rawValue
            if row.twice > 0 { out.append("\(name): \(row.twice) notification(s) were shown more than once") }
            if row.missed > 0 { out.append("\(name): \(row.missed) notification(s) were never shown") }
            if row.documentedMisses > 0 {
                out.append("\(name): \(row.documentedMisses) notification(s) were acknowledged, then lost by the phone without a release, and never shown")
            }
            if row.afterCancel > 0 { out.append("\(name): \(row.afterCancel) notification(s) were shown after a cancel") }
            if row.afterLogout > 0 { out.append("\(name): \(row.afterLogout) notification(s) were shown after their person signed out") }
            if row.wrongPerson > 0 { out.append("\(name): \(row.wrongPerson) notification(s) were shown to someone they were not for") }
            if row.early > 0 { out.append("\(name): \(row.early) notification(s) were shown before their moment") }
            if row.snoozeBroken > 0 { out.append("\(name): \(row.snoozeBroken) snoozed reminder(s) were not shown again exactly once, after the snooze") }
            return out
        }
        if !travellersUnacknowledged.isEmpty {
            out.append("traveller: \(travellersUnacknowledged.count) local notification(s) fired but the server holds no acknowledgment (its fallback would repeat them)")
        }
        if platform.lateAfterShown > 0 {
            out.append("\(platform.lateAfterShown) acknowledgment(s) were answered late after the phone's copy had fired (the fallback repeats it)")
        }
        if platform.budgetOverruns > 0 {
            out.append("iOS cut off \(platform.budgetOverruns) silent push wake(s) at 30 s: the SDK had not answered")
        }
        if !doneNotRecorded.isEmpty {
            out.append("done-from-the-lock-screen: \(doneNotRecorded.count) run summary(ies) without the Done chosen on the lock screen")
        }
        if platform.actionsTracked < platform.actionsChosen {
            out.append("\(platform.actionsChosen - platform.actionsTracked) button(s) chosen on a BuzzKit notification were not tracked ($push.action)")
        }
        if platform.opensTracked < platform.taps {
            out.append("tapper: \(platform.taps - platform.opensTracked) tap(s) on a BuzzKit notification were not tracked ($push.opened)")
        }
        if let first = platform.appleRulesBroken.first {
            out.append("the app broke iOS's rules \(platform.appleRulesBroken.count) time(s), first: \(first)")
        }
        return out
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}
