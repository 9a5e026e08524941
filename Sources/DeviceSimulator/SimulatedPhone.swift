import BuzzKit
import BuzzKitWire
import Foundation

/// One phone: a real SDK instance with an in-memory notification center on the real clock,
/// its own store, and a network it can lose. It records every notification it shows.
final class SimulatedPhone: @unchecked Sendable {
    let subscriberId: String
    let behaviour: Behaviour
    /// Whether iOS hands this phone silent pushes (false when force-quit).
    let receivesSilentPushes: Bool
    let token: String
    let center: InMemoryNotificationCenter
    let network: NetworkConditionedTransport
    let client: BuzzKitClient
    let configuration: FleetConfiguration
    /// How late this phone's silent pushes arrive in Low Power Mode.
    let lowPowerDelay: Double
    private let lock = NSLock()
    private var shownStorage: [DeliveredNotification] = []
    private var planIds: Set<String> = []
    private var collapsed = 0

    /// Alerts that repeated one already shown (same collapse id).
    var collapsedRepeats: Int {
        lock.lock(); defer { lock.unlock() }
        return collapsed
    }

    init(subscriberId: String, behaviour: Behaviour, receivesSilentPushes: Bool, zone: String, configuration: FleetConfiguration,
         transport: URLSessionTransport, lowPowerDelay: Double = 0) throws {
        self.lowPowerDelay = lowPowerDelay
        self.subscriberId = subscriberId
        self.behaviour = behaviour
        self.receivesSilentPushes = receivesSilentPushes
        self.configuration = configuration
        token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let clock = SystemClock(timeZone: TimeZone(identifier: zone) ?? .gmt)
        center = InMemoryNotificationCenter(clock: clock)
        network = NetworkConditionedTransport(wrapping: transport)
        let expires = Int(Date().timeIntervalSince1970) + 86_400
        let subscriberToken = TenantToken.make(signingSecret: configuration.signingSecret, subscriberId: subscriberId, expiresAt: expires)
        var sdk = Configuration(apiBaseURL: configuration.apiBaseURL, publishableKey: configuration.publishableKey, subscriberId: subscriberId,
                                subscriberToken: .fixed(subscriberToken), pushTopic: configuration.topic)
        sdk.pushEnvironment = .production
        sdk.deviceToken = token
        sdk.automaticPushHandling = false
        sdk.eventFlushDelay = 0.5
        client = try BuzzKitClient(configuration: sdk, ports: BuzzKitPorts(notificationCenter: center, clock: clock,
                                                                             store: InMemoryKeyValueStore(), transport: network))
    }

    func start() async {
        let phone = self
        await center.setObserver { notification in phone.record(notification) }
        await center.startAutomaticFiring(maximumSleep: 0.25)
        await client.start()
    }

    func stop() async {
        await center.stopAutomaticFiring()
        await client.shutdown()
    }

    var isRegistered: Bool {
        get async { await client.registeredDevice != nil }
    }

    private func record(_ notification: DeliveredNotification) {
        lock.lock()
        // A repeat of the same id (an alert resent under the same apns-collapse-id, after a
        // worker died between APNs' answer and its commit) is "displayed to the user as a
        // single notification" (Apple's APNs documentation): counted apart, not shown twice.
        if shownStorage.contains(where: { $0.id == notification.id }) { collapsed += 1 } else { shownStorage.append(notification) }
        lock.unlock()
    }

    private func countPlan(_ id: String) {
        lock.lock(); planIds.insert(id); lock.unlock()
    }

    /// Distinct plans this phone was handed.
    var plansReceived: Int {
        lock.lock(); defer { lock.unlock() }
        return planIds.count
    }

    var shown: [DeliveredNotification] {
        lock.lock(); defer { lock.unlock() }
        return shownStorage
    }

    /// A push from the APNs stand-in, as iOS would hand it to this phone.
    func receive(payload: Data, silent: Bool) async {
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: payload) else { return }
        if !silent {
            await center.presentRemote(payload: object)
            return
        }
        guard receivesSilentPushes else { return }
        if case .object(let local)? = object["bk.local"] {
            countPlan(local["id"]?.stringValue ?? "")
            if behaviour == .lowPower { try? await Task.sleep(nanoseconds: UInt64(lowPowerDelay * 1e9)) }
            if behaviour == .offline {
                network.setOnline(false)
                let phone = self
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(phone.configuration.offlineSeconds * 1e9))
                    phone.network.setOnline(true)
                    await phone.client.networkDidBecomeAvailable()
                }
            }
        }
        _ = await client.handleRemoteNotification(payload: object)
    }

    /// Whether the phone acknowledged a plan and later dropped it (the 64-pending limit).
    var lostAfterAcknowledging: Bool {
        get async {
            let book = await client.planBook
            return book.records.values.contains { $0.state == .parked && $0.acknowledgmentEventId != nil }
        }
    }
}
