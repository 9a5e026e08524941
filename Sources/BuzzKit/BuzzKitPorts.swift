import BuzzKitWire
/// The platform an SDK instance runs on: every piece of I/O behind a protocol.
///
/// Give each instance its own ports (own center, clock, store) to run many simulated phones
/// in one process; the transport may be shared.
public struct BuzzKitPorts: Sendable {
    /// The notification center.
    public var notificationCenter: any NotificationScheduling
    /// The clock and time zone.
    public var clock: any Clock
    /// Persistence.
    public var store: any KeyValueStore
    /// Where the subscriber token is kept: the Keychain on iOS (``KeychainKeyValueStore``);
    /// ``store`` when none is given.
    public var secrets: any KeyValueStore
    /// The network.
    public var transport: any HTTPTransport
    /// The platform's push events (pushes, taps, device token), used when
    /// ``Configuration/automaticPushHandling`` is on; `nil` when there is none.
    public var pushEvents: (any PushEventSource)?
    /// The random numbers behind retry jitter (0..<1); replace for deterministic tests.
    public var random: @Sendable () -> Double

    /// Ports from their parts.
    public init(notificationCenter: any NotificationScheduling, clock: any Clock, store: any KeyValueStore,
                secrets: (any KeyValueStore)? = nil, transport: any HTTPTransport, pushEvents: (any PushEventSource)? = nil,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.notificationCenter = notificationCenter
        self.clock = clock
        self.store = store
        self.secrets = secrets ?? store
        self.transport = transport
        self.pushEvents = pushEvents
        self.random = random
    }
}
