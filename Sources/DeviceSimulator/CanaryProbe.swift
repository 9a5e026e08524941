import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation

/// A canary that walks every stage of the pipeline, again and again, so a drill can tell when
/// the system works again after a fault. Each probe posts `chaos.canary` for two subscribers
/// (through the trigger queue): one with a healthy phone (plan → acknowledgment through
/// ack-ingest → at the moment fallback-check decides "scheduled on device") and one with a
/// force-quit phone (no acknowledgment → the fallback push). A probe is complete when both
/// phones showed it and the server's run summary says the acknowledged run completed without
/// a fallback.
final class CanaryProbe: @unchecked Sendable {
    /// One probe: when it started and when it completed (or what went wrong).
    struct Probe: Sendable {
        var number: Int
        var start: Date
        var end: Date?
        var problem: String?
        /// Fell back, as designed, because an outage held up its event (accepted only after
        /// its moment: fallback at once) or its acknowledgment (not recorded by the moment:
        /// the phone withdrew its local copy and showed the fallback). It says nothing about
        /// recovery; a duplicate would still be counted.
        var late = false
    }

    let backend: BackendClient
    let local: SimulatedPhone
    let remote: SimulatedPhone
    let tag: String
    /// Seconds from a probe's post to its moment.
    let lead: Double
    /// How long a probe may take before it counts as failed.
    let timeout: Double
    private let lock = NSLock()
    private var probes: [Probe] = []
    private var stopped = false

    static var workflow: [String: Any] { [
        "trigger": ["event": "chaos.canary"],
        "steps": [["name": "wait", "waitUntil": ["at": "{{trigger.at}}"]],
                  ["name": "canary", "send": ["deliver": "local", "title": "Canary", "body": "probe {{trigger.n}}", "quietHours": "ignore"]]],
    ] }

    init(configuration: FleetConfiguration, router: PushRouter, lead: Double = 3, timeout: Double = 180) throws {
        backend = BackendClient(baseURL: configuration.apiBaseURL, secretKey: configuration.secretKey)
        tag = configuration.tag
        let transport = URLSessionTransport(timeout: 15, maximumConnectionsPerHost: 4)
        // The healthy phone keeps the app on screen (a kiosk), so each probe's plan is
        // acknowledged as soon as the network allows; the drill measures the server.
        local = try SimulatedPhone(subscriberId: "canary-\(tag)-local", behaviour: .healthy, receivesSilentPushes: true, zone: "UTC",
                                   configuration: configuration, transport: transport, alwaysInForeground: true)
        remote = try SimulatedPhone(subscriberId: "canary-\(tag)-remote", behaviour: .forceQuit, receivesSilentPushes: false, zone: "UTC",
                                    configuration: configuration, transport: transport)
        self.lead = lead
        self.timeout = timeout
        router.register(local)
        router.register(remote)
    }

    /// Puts the workflow and the two subscribers in place and registers the phones.
    func setUp() async throws {
        try await backend.expect("PUT", "/v1/workflows/chaos-canary", body: Self.workflow)
        for phone in [local, remote] {
            try await backend.expect("PUT", "/v1/subscribers/\(phone.subscriberId)", body: ["timezone": "UTC"])
            await phone.start()
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if await local.isRegistered, await remote.isRegistered { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw SimulatorError("the canary phones did not register within 30 s")
    }

    /// Runs the next probe and keeps its outcome.
    @discardableResult
    func next() async -> Probe {
        let probe = await self.probe(number: reserveNumber())
        keep(probe)
        return probe
    }

    /// A probe's moment: whole seconds, ``lead`` after it started.
    private func moment(of probe: Probe) -> Date {
        Date(timeIntervalSince1970: (probe.start.timeIntervalSince1970 + lead).rounded(.up))
    }

    /// Starts a probe every `every` seconds (each on its own, so a slow one does not hold
    /// up the next), each watched for a repeat after it (``repeatWatch``), until `stop()`;
    /// then waits for those still running or watched.
    func loop(every: Double = 1) async {
        await withTaskGroup(of: Void.self) { group in
            while !isStopped {
                group.addTask {
                    let probe = await self.next()
                    await self.watchForRepeat(of: probe.number, moment: self.moment(of: probe))
                }
                try? await Task.sleep(nanoseconds: UInt64(every * 1e9))
            }
        }
    }

    private var issued = 0
    private func reserveNumber() -> Int { lock.lock(); defer { lock.unlock() }; issued += 1; return issued }
    private func keep(_ probe: Probe) { lock.lock(); probes.append(probe); lock.unlock() }
    func stop() { lock.lock(); stopped = true; lock.unlock() }
    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    /// The probes so far.
    var all: [Probe] { lock.lock(); defer { lock.unlock() }; return probes.sorted { $0.number < $1.number } }

    /// The first probe that started at or after `date` and completed.
    func firstCompleted(startedAfter date: Date) -> Probe? {
        all.filter { $0.start >= date && $0.end != nil && $0.problem == nil && !$0.late }.min { $0.end! < $1.end! }
    }

    /// Canary notifications shown more than once (per phone and probe; a repeat under the
    /// same collapse id is displayed as one).
    var duplicates: Int {
        [local, remote].reduce(0) { total, phone in
            total + Dictionary(grouping: phone.shown, by: \.body).values.reduce(0) { $0 + max(0, $1.count - 1) }
        }
    }

    /// Each probe's notification watched until `repeatWatch` seconds after its moment: shown
    /// again on a phone, the probe keeps what that phone went through.
    static let repeatWatch: Double = 20

    private func watchForRepeat(of number: Int, moment: Date) async {
        let wait = moment.addingTimeInterval(Self.repeatWatch).timeIntervalSinceNow
        if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
        let body = "probe \(number)"
        for phone in [local, remote] {
            let shown = phone.shown.filter { $0.body == body }
            guard shown.count > 1 else { continue }
            let description = "probe \(number) shown \(shown.count) times on \(phone.subscriberId) (\(shown.map { "\($0.origin.rawValue) \($0.id)" }.joined(separator: ", ")))\n"
                + phone.trace(around: moment, from: moment.addingTimeInterval(-Self.repeatWatch), to: Date()).map { "      " + $0 }.joined(separator: "\n")
            lock.withLock { repeats.append(description) }
            return
        }
    }

    private var repeats: [String] = []
    /// Each probe shown more than once on a phone: which, and that phone's trace around the
    /// moment (kept as it happens: the canary's traces turn over within a minute or two).
    var repeatedProbes: [String] { lock.withLock { repeats } }

    /// Canary alerts repeated under the same collapse id.
    var collapsedRepeats: Int { local.collapsedRepeats + remote.collapsedRepeats }

    func stopPhones() async {
        await local.stop()
        await remote.stop()
    }

    /// Runs probe `number` to completion (or failure).
    func probe(number: Int) async -> Probe {
        var probe = Probe(number: number, start: Date())
        let deadline = probe.start.addingTimeInterval(timeout)
        let at = moment(of: probe)
        let events: [[String: Any]] = [local, remote].map { phone in
            ["id": "canary-\(tag)-\(number)-\(phone.behaviour.rawValue)", "event": "chaos.canary", "subscriberId": phone.subscriberId,
             "properties": ["at": RFC3339.format(at), "n": number]]
        }
        do {
            try await backend.expectEventually("POST", "/v1/events", body: ["events": events], within: timeout)
            // Both phones show it: locally on the healthy one, as the fallback on the other.
            let body = "probe \(number)"
            while !local.shown.contains(where: { $0.body == body }) || !remote.shown.contains(where: { $0.body == body }) {
                guard Date() < deadline else { throw SimulatorError("probe \(number): not shown within \(Int(timeout)) s") }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            guard let shown = local.shown.first(where: { $0.body == body }), let slash = shown.id.firstIndex(of: "/") else {
                throw SimulatorError("probe \(number): no local id")
            }
            let runId = String(shown.id[..<slash])
            // The server recorded the acknowledgment and decided "scheduled on device".
            while true {
                if let summary = try? await backend.call("GET", "/v1/runs/\(runId)"), summary.status == 200,
                   let run = summary.json as? [String: Any], let status = run["status"] as? String, status != "waiting", status != "running" {
                    let local = ((run["steps"] as? [[String: Any]])?.last?["local"] as? [String: Any]) ?? [:]
                    let fallback = local["fallback"] as? [String: Any]
                    if status == "completed", fallback?["sent"] as? Bool == true {
                        probe.late = true
                        return probe
                    }
                    guard status == "completed", local["acknowledged"] as? Bool == true, fallback?["sent"] as? Bool != true else {
                        throw SimulatorError("probe \(number): run \(runId) ended \(status), acknowledged \(local["acknowledged"] ?? "nil"), fallback \(fallback ?? [:])")
                    }
                    break
                }
                guard Date() < deadline else { throw SimulatorError("probe \(number): run \(runId) not completed within \(Int(timeout)) s") }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            probe.end = Date()
        } catch {
            probe.problem = "\(error)"
        }
        return probe
    }
}
