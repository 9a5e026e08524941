import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// One simulated phone for a test: manual clock (2026-11-30T09:00:00Z, Europe/Berlin), an
/// in-memory center, store and push source, a recording transport behind a network switch,
/// and a client over them. ``restart()`` makes a new client over the same store and center.
final class TestPhone {
    static let start = RFC3339.parse("2026-11-30T09:00:00Z")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let token = "v1.\(Int(start.timeIntervalSince1970) + 86_400).\(String(repeating: "ab", count: 32))"
    static let deviceToken = String(repeating: "0f", count: 32)

    let clock: ManualClock
    let center: InMemoryNotificationCenter
    let store: InMemoryKeyValueStore
    /// The secrets store (the Keychain), when apart from ``store``.
    let secrets: InMemoryKeyValueStore?
    let transport = RecordingTransport()
    let network: NetworkConditionedTransport
    let source = InMemoryPushEventSource()
    let activity = ActivityLog()
    let configuration: Configuration
    private(set) var client: BuzzKitClient

    /// The plain configuration of a client a test builds on ports of its own.
    static func configuration(subscriberId: String = "u_1") -> Configuration {
        Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test")!, publishableKey: "pk_t",
                      subscriberId: subscriberId, subscriberToken: .fixed(token), pushTopic: "t")
    }

    /// A phone; `adjust` changes the configuration, `start` runs ``BuzzKitClient/start()``.
    /// `foreground`: the app is in the foreground after the start (code runs throughout);
    /// otherwise it is in the background and every push is a wake that ends in suspension.
    /// `subscriberId: nil` configures nobody signed in (the app calls `login` later).
    /// `authorization` is the notification permission at launch, `answerWhenAsked` what the
    /// person answers when asked while it is `notDetermined`.
    init(subscriberId: String? = "u_123", capacity: Int = 64, store: InMemoryKeyValueStore = InMemoryKeyValueStore(),
         secrets: InMemoryKeyValueStore? = nil, start: Bool = true, foreground: Bool = true, authorization: NotificationAuthorization = .authorized,
         answerWhenAsked: NotificationAuthorization = .authorized, _ adjust: (inout Configuration) -> Void = { _ in }) async throws {
        clock = ManualClock(now: Self.start, timeZone: Self.berlin)
        center = InMemoryNotificationCenter(clock: clock, capacity: capacity, authorization: authorization,
                                            answerWhenAsked: answerWhenAsked)
        self.store = store
        self.secrets = secrets
        network = NetworkConditionedTransport(wrapping: transport)
        let api = URL(string: "https://api.buzzkit.test/")!
        var configuration = if let subscriberId {
            Configuration(apiBaseURL: api, publishableKey: "pk_tenant_secret", subscriberId: subscriberId,
                          subscriberToken: .fixed(Self.token), pushTopic: "com.example.gym")
        } else {
            Configuration(apiBaseURL: api, publishableKey: "pk_tenant_secret", pushTopic: "com.example.gym")
        }
        configuration.retryPolicy = RetryPolicy(initialDelay: 2, multiplier: 2, maximumDelay: 60, jitter: 0.5)
        adjust(&configuration)
        self.configuration = configuration
        client = try Self.makeClient(configuration, clock, center, store, secrets, network, source, activity)
        await client.setActivityObserver { [activity] in activity.record($0) }
        if start {
            await client.start()
            if foreground { await client.applicationDidBecomeActive() }
        }
    }

    private static func makeClient(_ configuration: Configuration, _ clock: ManualClock, _ center: InMemoryNotificationCenter,
                                   _ store: InMemoryKeyValueStore, _ secrets: InMemoryKeyValueStore?, _ network: NetworkConditionedTransport,
                                   _ source: InMemoryPushEventSource, _ activity: ActivityLog) throws -> BuzzKitClient {
        let ports = BuzzKitPorts(notificationCenter: center, clock: clock, store: store, secrets: secrets, transport: network,
                                 pushEvents: source, random: { 0 })
        let client = try BuzzKitClient(configuration: configuration, ports: ports)
        return client
    }

    /// A new client over the same store, center and clock (an app relaunch). The old one is
    /// shut down first.
    func restart(foreground: Bool = true) async throws {
        await client.shutdown()
        client = try Self.makeClient(configuration, clock, center, store, secrets, network, source, activity)
        await client.setActivityObserver { [activity] in activity.record($0) }
        await client.start()
        if foreground { await client.applicationDidBecomeActive() }
    }

    /// The floating wall clock `seconds` from now in the device's zone.
    func fireAt(in seconds: TimeInterval) -> FireAt {
        FireAt(instant: clock.now.addingTimeInterval(seconds), in: clock.timeZone)
    }

    /// Delivers a plan firing `seconds` from now.
    @discardableResult
    func receivePlan(_ localId: String, in seconds: TimeInterval, cancelOn: [String] = [], messageId: String? = nil) async -> PushOutcome {
        let payload = Payloads.plan(localId, messageId: messageId, fireAt: fireAt(in: seconds), cancelOn: cancelOn)
        if case .plan(let plan) = IncomingPush(payload: payload) { transport.addPlan(plan) }
        return await client.handleRemoteNotification(payload: payload)
    }

    /// A plan firing `seconds` from now, as the server would list or push it.
    func plan(_ localId: String, in seconds: TimeInterval, cancelOn: [String] = [], messageId: String? = nil) -> LocalPlan {
        LocalPlan(id: localId, messageId: messageId ?? "msg-\(localId)", fireAt: fireAt(in: seconds), title: "Leg day",
                  body: "6:00 with Maya.", deepLink: "gym://workouts/legs", data: ["workoutId": "w1"], cancelOn: cancelOn)
    }

    /// Delivers the silent push of `plan` without touching the server's plan list.
    @discardableResult
    func push(_ plan: LocalPlan) async -> PushOutcome {
        await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: plan).jsonBytes))
    }

    /// The local ids of every posted `$local.scheduled` (resends included).
    var acknowledgedIds: [String] {
        transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }.compactMap { $0.properties["localId"]?.stringValue }
    }

    /// Moves the clock, fires what is due and waits until the client is idle.
    @discardableResult
    func advance(_ seconds: TimeInterval) async throws -> [DeliveredNotification] {
        clock.advance(by: seconds)
        let shown = await center.fireDue()
        try await waitIdle()
        return shown
    }

    /// Advances `seconds` and checks the person saw `ids` fire then, and nothing more is in
    /// Notification Center: each shown once.
    func expectShownOnce(_ ids: [String], within seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line) async throws {
        let shown = try await advance(seconds)
        XCTAssertEqual(shown.map(\.id), ids, "shown", file: file, line: line)
        let delivered = await center.deliveredNotifications()
        XCTAssertEqual(delivered.map(\.id).sorted(), ids.sorted(), "in Notification Center", file: file, line: line)
    }

    /// Waits (in real time, at most 5 s) until the client has nothing running or due.
    func waitIdle(file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = Date().addingTimeInterval(5)
        while !(await client.isIdle) {
            if Date() > deadline {
                XCTFail("the client did not become idle", file: file, line: line)
                return
            }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// The ids of the pending requests.
    func pendingIds() async -> [String] {
        await center.pendingRequests().map(\.id).sorted()
    }

    /// The names of the posted events.
    var postedNames: [String] { transport.postedEvents.map(\.event) }

    /// Answers the next `count` event posts `503 storage_unavailable` (a database restart
    /// behind the API), then lets them through.
    func refuseEventPosts(_ count: Int) {
        let refusals = Locked(count)
        transport.setRule { request in
            guard request.method == "POST", request.url.path.hasSuffix("/events") else { return nil }
            return refusals.withLock { left in
                guard left > 0 else { return nil }
                left -= 1
                return .status(503, body: "{\"error\":{\"code\":\"storage_unavailable\",\"message\":\"restarting\"}}")
            }
        }
    }

    /// Runs `work` (a wake that sleeps on the manual clock until its retries are due) while
    /// moving the clock on a quarter second at a time, for at most 5 s of real time. Returns
    /// whether it finished and how far the clock moved meanwhile.
    func whileTimePasses(_ work: @escaping @Sendable () async -> Void) async throws -> (finished: Bool, advanced: TimeInterval) {
        let finished = Locked(false)
        let running = Task {
            await work()
            finished.withLock { $0 = true }
        }
        let began = Date()
        var advanced: TimeInterval = 0
        while !finished.withLock({ $0 }), Date().timeIntervalSince(began) < 5 {
            clock.advance(by: 0.25)
            advanced += 0.25
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        running.cancel()
        return (finished.withLock { $0 }, advanced)
    }
}
