import Foundation

extension FleetReport {
    /// The table people read.
    public var text: String {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0 * 1000) } ?? "-" }
        let columns = [("windows", 8), ("once", 6), ("twice", 6), ("missed", 7), ("lost*", 6), ("after-cancel", 13),
                       ("after-logout", 13), ("wrong-person", 13), ("unpreventable†", 15), ("early", 6), ("late p50", 10), ("late p99", 10)]
        var lines = [pad("behaviour", 23) + columns.map { lpad($0.0, $0.1) }.joined()]
        for row in rows {
            let values = ["\(row.windows)", "\(row.exactlyOnce)", "\(row.twice)", "\(row.missed)", "\(row.documentedMisses)",
                          "\(row.afterCancel)", "\(row.afterLogout)", "\(row.wrongPerson)", "\(row.unpreventable)", "\(row.early)",
                          ms(Self.percentile(row.lateness, 0.5)), ms(Self.percentile(row.lateness, 0.99))]
            lines.append(pad(row.behaviour.rawValue, 23) + zip(values, columns).map { lpad($0, $1.1) }.joined())
        }
        lines.append("* lost: acknowledged, then dropped by the phone without a release, never shown (a violation)")
        lines.append("† shown after a server cancel that could not reach the phone before the moment (offline through it, or the cancel got in too late), a fallback for someone whose sign-out the API could only take at the last moment, or one after a completion in the app that the API refused until the moment (an outage): nobody could prevent it")
        let notJudged = rows.reduce(0) { $0 + $1.notJudged }
        if notJudged > 0 {
            lines.append("not judged: \(notJudged) (an outage kept the backend's workout, a sign-in, a traveller's plan or a phone's release from getting in before the moment)")
        }
        lines.append(String(format: "iOS and APNs: %d silent pushes kept back (throttled, or Low Power Mode; the newest kept for the next run), %d pushes discarded and %d expired in APNs' store for offline phones",
                            platform.throttled, platform.discardedOffline, platform.expiredOffline))
        lines.append(String(format: "wakes: the SDK answered silent pushes p50 %.2f s, p99 %.2f s, the slowest %.1f s after iOS handed them over (iOS allows about 30 s)",
                            platform.wakeP50, platform.wakeP99, platform.longestWake))
        let snoozed = rows.reduce(0) { $0 + $1.snoozedOnce }
        lines.append("Apple layer (on the model): \(platform.taps) tap(s), \(platform.opensTracked) tracked as $push.opened; "
                     + "\(platform.actionsChosen) button(s) chosen, \(platform.actionsTracked) tracked as $push.action "
                     + "(\(platform.snoozes) snooze(s), \(snoozed) reminder(s) shown again once after it; "
                     + "\(outcomes.filter { $0.window.eventsHeldByOutage == true }.count) whose events an outage refused or left unanswered until the suspension, "
                     + "\(outcomes.filter { $0.window.buttonsNotShown == true }.count) shown without buttons (a fallback whose plan never reached the phone), "
                     + "\(outcomes.filter { $0.window.shownAfterThePersonStoppedWaiting == true }.count) shown only after the person stopped waiting (no button chosen), judged apart); "
                     + "\(platform.throttledDelivered) kept-back silent push(es) handed over when the app next ran; "
                     + "\(platform.budgetOverruns) wake(s) cut off by iOS at 30 s; "
                     + "\(platform.appleRulesBroken.count) broken rule(s) of iOS (completion handlers, main thread, background tasks)")
        if !serverAnswers.routes.isEmpty {
            lines.append("server answers as the phones saw them (what a wake waits for):")
            lines += serverAnswers.lines
        }
        lines.append("SDKs: \(platform.synced) plans added or removed by a sync, \(platform.held) held back before suspension, "
                     + "\(platform.released) released ($local.released), \(platform.restored) put back; "
                     + "\(platform.lastCalls) kept out of the center until the server answered their acknowledgment (due within 2 s, or sooner than the phone's slow answers took, or still on its way at the last call) "
                     + "(\(platform.shownAfterAnswer) shown when it counted, \(platform.answeredLate) answered late, "
                     + "\(platform.lateAfterShown) of those after the copy fired); "
                     + "\(platform.protectedRefusals) reads or writes of protected files refused before a first unlock")
        if collapsedRepeats > 0 {
            lines.append("repeats under the same collapse id (displayed as one notification): \(collapsedRepeats)")
        }
        if let plansPerSecond { lines.append(String(format: "plans reached phones at %.0f windows/s (events posted → last plan received)", plansPerSecond)) }
        let remote = outcomes.flatMap { o in o.shown.filter { $0.kind == "remote" }.map { $0.at.timeIntervalSince(o.window.moment) } }
        if let last = remote.max() {
            lines.append(String(format: "fallbacks: %d shown, p50 %@ and p99 %@ after the moment (as APNs handed them over), the last %.2f s; lateness of all shown p99 %@",
                                remote.count, ms(Self.percentile(remote, 0.5)), ms(Self.percentile(remote, 0.99)), last,
                                ms(Self.percentile(rows.flatMap(\.lateness), 0.99))))
            lines.append(String(format: "simulator: alerts waited p99 %@ between arriving from APNs and this process handling them (its own load, not counted above)",
                                ms(platform.alertHandOverP99)))
        }
        lines.append(String(format: "simulator: its timers woke p99 %@ late, at worst %@ (a task of the simulator's own waiting for a thread: its load; a phone's wake resuming on its SDK's actor can wait longer)",
                            ms(platform.schedulerLateP99), ms(platform.schedulerLateMax)))
        if !stuckScripts.isEmpty {
            lines.append("simulator: \(stuckScripts.count) person script(s) still running a minute after the run: "
                         + stuckScripts.prefix(10).joined(separator: "; "))
        }
        let violations = self.violations
        lines.append(violations.isEmpty ? "violations: none" : "violations:\n  " + violations.joined(separator: "\n  "))
        for outcome in violating.prefix(10) {
            let shown = outcome.shown.map { String(format: "%@ %+.2f s on phone %d (%@)", $0.kind, $0.at.timeIntervalSince(outcome.window.moment), $0.device, $0.owner) }
            lines.append("  - \(outcome.window.workoutId) (\(outcome.window.expectation.rawValue)): " + (shown.isEmpty ? "not shown" : shown.joined(separator: ", ")))
            lines += (outcome.trace ?? []).map { "      " + $0 }
        }
        if !diagnosticTraces.isEmpty {
            lines.append("  the phones of the slowest wakes, of stuck scripts and of taps not tracked (seconds since the run began):")
            lines += diagnosticTraces.map { "      " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// The outcomes that broke a rule (for the details under the violations).
    var violating: [Outcome] {
        outcomes.filter { outcome in
            let window = outcome.window
            if window.expectation != .unpreventable, outcome.shown.contains(where: { $0.owner != window.subscriberId }) { return true }
            switch window.expectation {
            case .never: return !outcome.shown.isEmpty
            case .unpreventable, .notJudged: return false
            case .once:
                return outcome.shown.isEmpty || outcome.shownTwice
                    || outcome.shown.contains { $0.at.timeIntervalSince(window.moment) < -earlyTolerance }
            }
        }
    }
}
