import BuzzKit
import BuzzKitWire
import Foundation

/// N simulated phones against the real API: registers them, schedules a workout for every
/// subscriber with its moment `leadSeconds` ahead, plays each behaviour, waits for the moment,
/// and reports what every person saw.
public final class Fleet: @unchecked Sendable {
    public let configuration: FleetConfiguration
    public let router: PushRouter
    var phones: [SimulatedPhone] = []
    var bySubscriber: [String: [SimulatedPhone]] = [:]
    var behaviours: [String: Behaviour] = [:]
    /// The wave each subscriber belongs to, and the moment its plan is for.
    var waveOf: [String: Int] = [:]
    var moments: [String: Date] = [:]
    var postedAt: Date?
    var plansDoneAt: Date?
    /// One HTTP client shared by every phone.
    let transport = URLSessionTransport(timeout: 15, maximumConnectionsPerHost: 64)

    public init(configuration: FleetConfiguration, router: PushRouter) {
        self.configuration = configuration
        self.router = router
    }

    static var workflow: [String: Any] { [
        "trigger": ["event": "workout.scheduled"],
        "cancelOn": [["event": "workout.completed"], ["event": "workout.moved", "where": ["workoutId": ["$trigger": "workoutId"]]]],
        "steps": [["name": "morning-of", "waitUntil": ["at": "{{trigger.at}}"]],
                  ["name": "nudge", "send": ["deliver": "local", "title": "Leg day", "body": "{{trigger.coach}} is waiting.",
                                             "deepLink": "gym://workouts/legs", "data": [:] as [String: Any], "quietHours": "ignore"]]],
    ] }

    /// Runs the whole scenario and returns the report.
    public func run() async throws -> FleetReport {
        let backend = BackendClient(baseURL: configuration.apiBaseURL, secretKey: configuration.secretKey)
        try await backend.expect("PUT", "/v1/workflows/leg-day", body: Self.workflow)
        try await createPhones(backend)
        let waves = FleetWave.plan(count: configuration.waves, start: Date(), interval: configuration.waveInterval,
                                   lead: configuration.leadSeconds)
        configuration.onWavesPlanned?(waves)
        postedAt = Date()
        let fleet = self
        let posting = Task { () throws -> Void in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for wave in waves {
                    group.addTask {
                        let wait = wave.postAt.timeIntervalSinceNow
                        if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
                        try await fleet.scheduleWorkouts(backend, wave: wave)
                        await fleet.completeWorkouts(wave: wave)
                    }
                }
                try await group.waitForAll()
            }
        }
        let last = waves.last!.moment
        await waitWithProgress(until: last.addingTimeInterval(configuration.settleSeconds), waves: waves)
        try await posting.value
        var report = await makeReport()
        report.collapsedRepeats = phones.reduce(0) { $0 + $1.collapsedRepeats }
        if waves.count == 1, let plansDoneAt, let postedAt {
            report.plansPerSecond = Double(bySubscriber.count - (behaviours.values.filter { $0 == .forceQuit }.count)) / plansDoneAt.timeIntervalSince(postedAt)
        }
        for phone in phones { await phone.stop() }
        return report
    }

    private func createPhones(_ backend: BackendClient) async throws {
        for index in 0..<configuration.subscribers {
            let behaviour = configuration.mix[index % configuration.mix.count]
            let subscriberId = "sim-\(configuration.tag)-\(index)"
            let zone = configuration.zones[index % configuration.zones.count]
            try await backend.expect("PUT", "/v1/subscribers/\(subscriberId)", body: ["timezone": zone])
            // Half the Low Power phones get their plan only after the moment (the fallback covers them).
            let lateBy = (index / configuration.mix.count) % 2 == 0 ? configuration.lowPowerDelay : configuration.leadSeconds + configuration.lowPowerDelay
            var owned = [try SimulatedPhone(subscriberId: subscriberId, behaviour: behaviour, receivesSilentPushes: behaviour != .forceQuit,
                                            zone: zone, configuration: configuration, transport: transport, lowPowerDelay: lateBy)]
            if behaviour == .twoDevices {
                owned.append(try SimulatedPhone(subscriberId: subscriberId, behaviour: behaviour, receivesSilentPushes: false,
                                                zone: zone, configuration: configuration, transport: transport))
            }
            for phone in owned { router.register(phone) }
            phones += owned
            bySubscriber[subscriberId] = owned
            behaviours[subscriberId] = behaviour
            waveOf[subscriberId] = index * max(1, configuration.waves) / configuration.subscribers
        }
        await withTaskGroup(of: Void.self) { group in
            for phone in phones { group.addTask { await phone.start() } }
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            var registered = 0
            for phone in phones where await phone.isRegistered { registered += 1 }
            if registered == phones.count { return }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        throw SimulatorError("not every phone registered its device within 60 s")
    }

    private func scheduleWorkouts(_ backend: BackendClient, wave: FleetWave) async throws {
        let subscribers = bySubscriber.keys.filter { waveOf[$0] == wave.index }.sorted()
        for id in subscribers { setMoment(wave.moment, for: id) }
        for start in stride(from: 0, to: subscribers.count, by: 500) {
            let events: [[String: Any]] = subscribers[start..<min(start + 500, subscribers.count)].map { id in
                ["id": "scheduled-\(id)", "event": "workout.scheduled", "subscriberId": id,
                 "properties": ["at": RFC3339.format(wave.moment), "workoutId": "w-\(id)", "coach": "Maya"]]
            }
            // A backend retries (with the same event ids) while the API is unavailable.
            try await backend.expectEventually("POST", "/v1/events", body: ["events": events], within: configuration.retryWindow)
        }
    }

    private let momentsLock = NSLock()
    private func moment(of subscriberId: String) -> Date {
        momentsLock.lock(); defer { momentsLock.unlock() }
        return moments[subscriberId] ?? .distantFuture
    }
    private func setMoment(_ moment: Date, for subscriberId: String) {
        momentsLock.lock(); moments[subscriberId] = moment; momentsLock.unlock()
    }

    /// People who complete their workout track the cancelling event on their phone,
    /// `completeBefore` seconds before the moment. When the backend could only get the
    /// workout in (API unavailable) after that time, the person does not complete it early:
    /// their plan is then expected like anyone else's.
    private func completeWorkouts(wave: FleetWave) async {
        let wait = wave.moment.addingTimeInterval(-configuration.completeBefore).timeIntervalSinceNow
        guard wait > 0 else { return }
        try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
        let completers = phones.filter { $0.behaviour == .completes && waveOf[$0.subscriberId] == wave.index }
        markCompleted(completers.map(\.subscriberId))
        await withTaskGroup(of: Void.self) { group in
            for phone in completers {
                group.addTask { try? await phone.client.track("workout.completed") }
            }
        }
    }

    private var completedSubscribers: Set<String> = []
    private func markCompleted(_ ids: [String]) {
        momentsLock.lock(); completedSubscribers.formUnion(ids); momentsLock.unlock()
    }
    private func completed(_ subscriberId: String) -> Bool {
        momentsLock.lock(); defer { momentsLock.unlock() }
        return completedSubscribers.contains(subscriberId)
    }

    private func waitWithProgress(until end: Date, waves: [FleetWave]) async {
        while Date() < end {
            let plans = phones.reduce(0) { $0 + $1.plansReceived }
            if plansDoneAt == nil && plans >= phones.filter(\.receivesSilentPushes).count { plansDoneAt = Date() }
            let shownLocal = phones.reduce(0) { $0 + $1.shown.filter { $0.origin == .local }.count }
            let shownRemote = phones.reduce(0) { $0 + $1.shown.filter { $0.origin == .remote }.count }
            let toGo = (waves.first { $0.moment > Date() }?.moment ?? waves.last!.moment).timeIntervalSinceNow
            configuration.progress?(String(format: "%@ plans received %d/%d · shown locally %d · fallbacks shown %d",
                                           toGo > 0 ? String(format: "moment in %4.1fs ·", toGo) : "after the moment ·",
                                           plans, phones.filter(\.receivesSilentPushes).count, shownLocal, shownRemote))
            try? await Task.sleep(nanoseconds: plansDoneAt == nil ? 100_000_000 : 1_000_000_000)
        }
    }

    private func makeReport() async -> FleetReport {
        var outcomes: [FleetReport.Outcome] = []
        for (subscriberId, owned) in bySubscriber.sorted(by: { $0.key < $1.key }) {
            var shown: [FleetReport.Outcome.Shown] = []
            var lost = false
            for (device, phone) in owned.enumerated() {
                shown += phone.shown.map { .init(at: $0.deliveredAt, kind: $0.origin.rawValue, id: $0.id, device: device) }
                if await phone.lostAfterAcknowledging { lost = true }
            }
            let behaviour = behaviours[subscriberId] ?? .healthy
            let moment = self.moment(of: subscriberId)
            outcomes.append(.init(subscriberId: subscriberId, behaviour: behaviour, moment: moment, cancelled: completed(subscriberId),
                                  shown: shown.sorted { $0.at < $1.at }, lostAfterAcknowledging: lost))
        }
        return FleetReport(outcomes: outcomes)
    }
}
