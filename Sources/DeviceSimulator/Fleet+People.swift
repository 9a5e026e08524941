import BuzzKitOnAppleModel
import Foundation

extension Fleet {
    /// Plays what the wave's people and their phones do between the plan and the moment.
    func playPeople(_ backend: BackendClient, wave: FleetWave) async throws {
        let subscribers = bySubscriber.keys.filter { waveOf[$0] == wave.index }.sorted()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in subscribers {
                let behaviour = behaviours[id]!
                let phone = bySubscriber[id]![0]
                let nth = ordinal[id]!
                // People open their app now and then; some never do.
                if [.healthy, .offline, .lowPower, .twoDevices, .traveller, .denied].contains(behaviour), chance(0.3) {
                    let at = wave.postAt.addingTimeInterval(configuration.leadSeconds * (0.2 + 0.5 * Double(nth % 7) / 7))
                    group.addTask { try await self.tracked("\(id) opens the app") { await Self.at(at) { await phone.open(stay: 1) } } }
                }
                group.addTask {
                    try await self.tracked("\(id) \(behaviour.rawValue)") {
                        try await self.play(behaviour, id: id, nth: nth, phone: phone, backend: backend, wave: wave)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private func play(_ behaviour: Behaviour, id: String, nth: Int, phone: SimulatedPhone, backend: BackendClient, wave: FleetWave) async throws {
        let lead = configuration.leadSeconds
        switch behaviour {
        case .completes:
            // People complete the workout in the app `completeBefore` seconds before the moment.
            // When the backend could only get the workout in (API unavailable) after that
            // time, the person does not complete it early: the plan is expected as usual.
            let when = wave.moment.addingTimeInterval(-configuration.completeBefore)
            guard when > Date() else { return }
            await Self.at(when) {
                updateWindow("w-\(id)") { $0.expectation = .never; $0.neverBecause = "cancel" }
                await phone.openAndTrack("workout.completed")
            }
            // The completion must reach the server before the moment, or the fallback of a plan
            // the server does not count on (its acknowledgment refused in an outage, the plan
            // held) still comes: when the API took none of the phone's events from the
            // completion to the moment (unavailable throughout), nobody could prevent it.
            await Self.at(wave.moment) {
                if !phone.eventsDelivered(after: when, before: wave.moment) {
                    updateWindow("w-\(id)") { $0.expectation = .unpreventable }
                }
            }
        case .offlineThroughCancel:
            await waitForPlan(phone, until: wave.moment.addingTimeInterval(-lead * 0.6))
            phone.goOffline()
            // The backend moves the workout (a server-side cancel: the rule has a `where`)…
            try await backend.expectEventually("POST", "/v1/events", body: ["events": [[
                "id": "moved-w-\(id)", "event": "workout.moved", "subscriberId": id, "properties": ["workoutId": "w-\(id)"]]]],
                within: configuration.retryWindow)
            if nth % 2 == 0 {
                // Moved in time for the returning phone to hear of it, unless the API could only
                // take the move at the last moment.
                let late = Date() > wave.moment.addingTimeInterval(-Self.lastMomentMargin)
                updateWindow("w-\(id)") { $0.expectation = late ? .unpreventable : .never; $0.neverBecause = "cancel" }
                // …and plans another: APNs keeps one of the two pushes for the offline phone.
                let second = wave.moment.addingTimeInterval(secondWorkoutDelay)
                expect(FleetWindow(workoutId: "w-\(id)-2", subscriberId: id, behaviour: behaviour, moment: second, expectation: .once))
                try await backend.expectEventually("POST", "/v1/events", body: ["events": [workout(id, workoutId: "w-\(id)-2", at: second)]],
                                                   within: configuration.retryWindow)
                await Self.at(wave.moment.addingTimeInterval(-lead * 0.25)) { await phone.goOnline() }
            } else {
                await Self.at(wave.moment.addingTimeInterval(2)) { await phone.goOnline() }
            }
        case .budgetExhausted:
            if nth % 2 == 0 {
                await Self.at(wave.moment.addingTimeInterval(-lead * 0.4)) { await phone.open(stay: 1) }
            }
        case .traveller:
            await waitForPlan(phone, until: wave.moment.addingTimeInterval(-lead * 0.3))
            await phone.travel(to: Self.travellerDestination)
            // A plan the phone could not acknowledge in time there (it reached the phone after
            // the wall clock had come in Kathmandu, or inside the acknowledgment deadline, or
            // was held while an outage refused its acknowledgment) is the server's fallback at
            // its own moment, 15 minutes on, after this run: judged at the end
            // (``Fleet/leaveUnacknowledgedTravellersToTheServer(_:)``).
        case .logoutSwitch:
            await waitForPlan(phone, until: wave.moment.addingTimeInterval(-lead * 0.4))
            let next = Self.successor(of: id)
            await phone.switchUser(to: next, stay: 1)
            // A switch the API could only take at the last moment (unavailable right then,
            // the SDK retrying): the server still had the device as the first person's when
            // their fallback went out, and the second person's plan and fallback had no device
            // of theirs to go to. Nobody could prevent either; counted apart.
            let inTime = wave.moment.addingTimeInterval(-Self.lastMomentMargin)
            await Self.at(inTime) {
                if (phone.serverMovedDevice(from: id, to: next).map { $0 > inTime } ?? true) {
                    updateWindow("w-\(id)") { $0.expectation = .unpreventable }
                }
                if (phone.registeredAt(for: next).map { $0 > inTime } ?? true) {
                    updateWindow("w-\(next)") { $0.expectation = .notJudged }
                }
            }
        case .reinstalled:
            guard nth % 2 == 1 else { return }
            await waitForPlan(phone, until: wave.moment.addingTimeInterval(-lead * 0.4))
            // The person reinstalls while the plan is ahead. When an outage let the backend's
            // workout in only at the last moment, this script starts that late too, and a
            // reinstall now would race the fallback to the old install (sent as the app is
            // deleted, answered 410): no reinstall then, the phone gets its fallback.
            guard Date() < wave.moment.addingTimeInterval(-Self.lastMomentMargin) else { return }
            await phone.reinstall()
            await phone.open(stay: 1)
        case .crowded, .crowdedTwoDevices:
            // The person opens the app while the doses fire: slots free up, parked plans go back.
            let span = Double(configuration.crowdedPlans) * configuration.crowdedSpacing
            await Self.at(wave.moment.addingTimeInterval(span * 0.3)) { await phone.open(stay: 1) }
        case .appOwnRequests:
            await waitForPlan(phone, until: wave.moment.addingTimeInterval(-lead * 0.6))
            let at = wave.moment.addingTimeInterval(-lead * 0.5)
            let failures = phone.locked { phone.flushFailures }
            await Self.at(at) { await phone.openAndAddOwnReminders(64, firingBetween: at.addingTimeInterval(1), and: wave.moment) }
            // The release of the plan iOS dropped must reach the server before the moment, or
            // the server counts on a plan nobody sees and sends no fallback: when the API refused
            // it and took none of the phone's events from then to the moment (an outage
            // throughout, a PostgreSQL failover), nobody could prevent the miss.
            await Self.at(wave.moment) {
                if phone.locked({ phone.flushFailures }) > failures, !phone.eventsDelivered(after: at, before: wave.moment) {
                    updateWindow("w-\(id)") { $0.expectation = .notJudged }
                }
            }
        case .lastSecond:
            // Offline since before the wave was posted (Fleet.scheduleWorkouts).
            // Every other one on a slow network: its acknowledgment reaches the server after
            // the moment, as the fallback is decided (issue 45, race 3).
            let uplink = nth % 2 == 1 ? SimulatedPhone.lastSecondSlowUplink + 0.15 * Double(nth / 2 % 4) : 0
            await Self.at(wave.moment.addingTimeInterval(-SimulatedPhone.lastSecondReturn)) { await phone.goOnline(uplinkDelay: uplink) }
        case .tapper:
            await waitForPlan(phone, until: wave.moment.addingTimeInterval(-lead * 0.4))
            // Every other phone: iOS ends the suspended app's process before the moment, so
            // the tap launches it (a cold launch by a tap).
            if nth % 2 == 0 { await Self.at(wave.moment.addingTimeInterval(-lead * 0.2)) { phone.terminate(byPerson: false) } }
            guard await phone.waitUntil(wave.moment.addingTimeInterval(configuration.settleSeconds), { !phone.shown.isEmpty }),
                  let shown = phone.shown.first else { return }
            await phone.tap(shown.id)
        case .doneFromLockScreen, .snoozer:
            await waitForPlan(phone, until: wave.moment.addingTimeInterval(-lead * 0.4))
            await phone.waitUntil(wave.moment.addingTimeInterval(configuration.settleSeconds)) { !phone.shown.isEmpty }
            guard let original = phone.shown.first?.id else {
                updateWindow("w-\(id)") { $0.shownAfterThePersonStoppedWaiting = true }
                return
            }
            let failures = phone.locked { phone.flushFailures }, cut = phone.requestsCutBySuspension
            guard await phone.choose(behaviour == .snoozer ? Self.snoozeAction : Self.doneAction, on: original) else {
                updateWindow("w-\(id)") { $0.buttonsNotShown = true }
                return
            }
            // An outage that refused the button's events, or kept their request unanswered, until
            // iOS suspended the app: they wait on the phone for its next run (judged apart, as
            // nobody could send them sooner). A request still on its way at the suspension
            // reports its failure only when the app runs again, so the queue is what tells.
            let outage = phone.locked({ phone.flushFailures }) > failures || phone.requestsCutBySuspension > cut
            if outage, await phone.buttonEventsWaiting() {
                updateWindow("w-\(id)") { $0.eventsHeldByOutage = true }
            }
            guard behaviour == .snoozer else { return }
            // The report is made once every script ended: wait for the snoozed reminder.
            let again = Date().addingTimeInterval(Double(configuration.snoozeSeconds) + configuration.settleSeconds)
            await phone.waitUntil(again) { phone.shown.contains { $0.id.contains("/snooze/") } }
        case .locked:
            let unlockAt = nth % 2 == 0 ? wave.moment.addingTimeInterval(-lead * 0.6) : wave.moment.addingTimeInterval(1)
            await Self.at(unlockAt) {
                await phone.unlock()
                await phone.open(stay: 1)
            }
        case .lowPower:
            // Nothing reaches the app in the background: every other person opens it before
            // the moment (the kept push is handed over, the sync brings the plan), the others
            // see the fallback.
            if nth % 2 == 0 { await Self.at(wave.moment.addingTimeInterval(-lead * 0.6)) { await phone.open(stay: 1) } }
        case .healthy, .forceQuit, .offline, .twoDevices, .denied:
            return
        }
    }

    /// Waits until the phone was handed a plan, at most until `deadline`.
    private func waitForPlan(_ phone: SimulatedPhone, until deadline: Date) async {
        await phone.waitUntil(deadline) { phone.plansReceived > 0 }
    }

    /// Runs `body` at `date` (at once when it has passed).
    static func at(_ date: Date, _ body: () async -> Void) async {
        let wait = date.timeIntervalSinceNow
        if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
        await body()
    }
}
