import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation

extension Fleet {
    /// The zone travellers live in, and the one they fly to (15 minutes ahead).
    static let travellerHome = "Asia/Kolkata"
    static let travellerDestination = "Asia/Kathmandu"
    static let travellerShift: TimeInterval = 15 * 60
    /// A backend's event accepted later than this before a moment is too late for the phone
    /// to act on before it.
    static let lastMomentMargin: TimeInterval = 3

    /// The second subscriber of a logout-switch phone.
    static func successor(of subscriberId: String) -> String { subscriberId + "-next" }

    /// Creates every subscriber and phone, installs and opens each app once (registration),
    /// then leaves them as iOS would: suspended, some reclaimed by the system, force-quit
    /// ones swiped away; half the reinstalled phones are reinstalled now, before any plan.
    func createPhones(_ backend: BackendClient) async throws {
        var counts: [Behaviour: Int] = [:]
        for index in 0..<configuration.subscribers {
            let behaviour = configuration.mix[index % configuration.mix.count]
            let nth = counts[behaviour, default: 0]
            counts[behaviour] = nth + 1
            let subscriberId = "sim-\(configuration.tag)-\(index)"
            let zone = behaviour == .traveller ? Self.travellerHome : configuration.zones[index % configuration.zones.count]
            try await backend.expect("PUT", "/v1/subscribers/\(subscriberId)", body: ["timezone": zone])
            if behaviour == .logoutSwitch {
                try await backend.expect("PUT", "/v1/subscribers/\(Self.successor(of: subscriberId))", body: ["timezone": zone])
            }
            func phone(silent: Bool = true, authorization: NotificationAuthorization = .authorized, appOwn: Int = 0) throws -> SimulatedPhone {
                try SimulatedPhone(subscriberId: subscriberId, behaviour: behaviour, receivesSilentPushes: silent, zone: zone,
                                   configuration: configuration, transport: transport,
                                   lowPowerMode: behaviour == .lowPower,
                                   silentBudget: behaviour == .budgetExhausted ? 0 : SilentPushPolicy.defaultHourlyBudget,
                                   appOwnRequests: appOwn, authorization: authorization, seed: configuration.seed &+ UInt64(index))
            }
            var owned: [SimulatedPhone]
            switch behaviour {
            case .forceQuit: owned = [try phone(silent: false)]
            case .twoDevices: owned = [try phone(), try phone(silent: false)]
            case .denied: owned = [try phone(authorization: .denied), try phone(silent: false)]
            case .crowdedTwoDevices: owned = [try phone(appOwn: configuration.crowdedAppRequests), try phone()]
            default: owned = [try phone()]
            }
            for phone in owned { router.register(phone) }
            phones += owned
            bySubscriber[subscriberId] = owned
            behaviours[subscriberId] = behaviour
            ordinal[subscriberId] = nth
            waveOf[subscriberId] = index * max(1, configuration.waves) / configuration.subscribers
        }
        await withTaskGroup(of: Void.self) { group in
            for phone in phones { group.addTask { await phone.start() } }
        }
        try await waitForRegistration()
        // iOS reclaims some suspended apps: their next silent push launches them (cold launch).
        for (index, phone) in phones.enumerated() where index % 3 == 1 && phone.appState == .suspended {
            phone.terminate(byPerson: false)
        }
        await withTaskGroup(of: Void.self) { group in
            for (subscriberId, owned) in bySubscriber where behaviours[subscriberId] == .reinstalled && ordinal[subscriberId]! % 2 == 0 {
                group.addTask {
                    await owned[0].reinstall()
                    await owned[0].open(stay: 0.5)
                }
            }
        }
        try await waitForRegistration()
    }

    private func waitForRegistration() async throws {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            var registered = 0
            for phone in phones where await phone.isRegistered { registered += 1 }
            if registered == phones.count { return }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        throw SimulatorError("not every phone registered its device within 90 s")
    }

    /// Posts the wave's workouts (one per subscriber, both people of a logout-switch phone)
    /// and records what each person must see.
    func scheduleWorkouts(_ backend: BackendClient, wave: FleetWave) async throws {
        let subscribers = bySubscriber.keys.filter { waveOf[$0] == wave.index }.sorted()
        var events: [[String: Any]] = []
        for id in subscribers where behaviours[id] == .lastSecond {
            bySubscriber[id]![0].goOffline()  // back a second before the moment
        }
        for id in subscribers where behaviours[id] == .locked {
            bySubscriber[id]![0].restart()  // the plan's push meets a phone not unlocked since
        }
        for id in subscribers {
            let behaviour = behaviours[id]!
            var at = wave.moment
            if behaviour == .traveller {
                // Planned in Kolkata for a wall clock 15 minutes later than the wave's moment;
                // in Kathmandu that wall clock comes at the wave's moment.
                at = wave.moment.addingTimeInterval(Self.travellerShift)
            }
            events.append(workout(id, workoutId: "w-\(id)", at: at))
            let offlineThrough = behaviour == .offlineThroughCancel && ordinal[id]! % 2 == 1
            expect(FleetWindow(workoutId: "w-\(id)", subscriberId: id, behaviour: behaviour, moment: wave.moment,
                               expectation: behaviour == .logoutSwitch ? .never : offlineThrough ? .unpreventable : .once,
                               neverBecause: behaviour == .logoutSwitch ? "logout" : nil))
            if behaviour == .crowded || behaviour == .crowdedTwoDevices {
                // Posted latest first (a medication schedule written backwards): the first
                // pushes bring late doses, which sooner ones then push out of the 64.
                for dose in (1..<configuration.crowdedPlans).reversed() {
                    // Plans fire on whole seconds (fireAt has no fraction): several doses a second.
                    let moment = wave.moment.addingTimeInterval((Double(dose) * configuration.crowdedSpacing).rounded(.down))
                    events.append(workout(id, workoutId: "w-\(id)-d\(dose)", at: moment))
                    expect(FleetWindow(workoutId: "w-\(id)-d\(dose)", subscriberId: id, behaviour: behaviour, moment: moment, expectation: .once))
                }
            }
            if behaviour == .logoutSwitch {
                let next = Self.successor(of: id)
                events.append(workout(next, workoutId: "w-\(next)", at: wave.moment))
                expect(FleetWindow(workoutId: "w-\(next)", subscriberId: next, behaviour: behaviour, moment: wave.moment, expectation: .once))
            }
        }
        for start in stride(from: 0, to: events.count, by: 500) {
            // A backend retries (with the same event ids) while the API is unavailable.
            try await backend.expectEventually("POST", "/v1/events", body: ["events": Array(events[start..<min(start + 500, events.count)])],
                                               within: configuration.retryWindow)
        }
        // Got in too late (the API was unavailable) for a traveller's phone to have the plan
        // before landing at the moment: its notification is the server's fallback 15 minutes
        // on, after this run.
        if Date() > wave.moment.addingTimeInterval(-Self.lastMomentMargin) {
            for id in subscribers where behaviours[id] == .traveller {
                updateWindow("w-\(id)") { $0.expectation = .notJudged }
            }
        }
    }

    func workout(_ subscriberId: String, workoutId: String, at: Date) -> [String: Any] {
        ["id": "scheduled-\(workoutId)", "event": "workout.scheduled", "subscriberId": subscriberId,
         "properties": ["at": RFC3339.format(at), "workoutId": workoutId, "coach": "Maya"]]
    }
}
