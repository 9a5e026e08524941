import Foundation

/// What a fault drill runs: the server processes it starts, the fleet it plays against them
/// and the faults it injects.
public struct FaultDrillConfiguration: Sendable {
    /// The `buzzkit` executable (api, worker, scheduler, migrate, tenant).
    public var binary: String
    /// `scripts/services.sh` (restart-postgres, restart-rabbitmq).
    public var servicesScript: String
    public var databaseURL: String
    public var amqpURL: String
    /// Logs, keys and certificates go here.
    public var workDirectory: String
    /// Keeps this drill's tables and queues apart (`BUZZKIT_DB_SCHEMA`, `BUZZKIT_QUEUE_PREFIX`).
    public var tag: String
    public var httpPort: Int
    /// Subscribers in the fleet, dealt into `waves` waves `waveInterval` seconds apart, each
    /// wave's moment `lead` seconds after it is posted.
    public var subscribers: Int = 120
    public var waves: Int = 12
    public var waveInterval: Double = 6
    public var lead: Double = 10
    /// The faults, injected one after another (each once the system recovered from the last).
    public var faults: [Fault] = Fault.standardDrill()
    /// Seeds the random moments the faults land at (printed, so a run can be repeated).
    public var seed: UInt64 = UInt64.random(in: 1...UInt64(UInt32.max))
    /// Worker processes per queue (the drill kills the first; the others keep consuming).
    public var workerReplicas: Int = 1
    /// How long a killed process stays down before the supervisor starts it again.
    public var restartDelay: Double = 1
    /// A fault not recovered from within this many seconds fails the drill.
    public var recoveryTimeout: Double = 120
    /// Extra environment for the server processes (e.g. `BUZZKIT_PREFETCH`).
    public var serverEnvironment: [String: String] = [:]
    /// Progress lines.
    public var progress: (@Sendable (String) -> Void)?

    public init(binary: String, servicesScript: String, databaseURL: String, amqpURL: String, workDirectory: String,
                tag: String = "chaos_" + String(UUID().uuidString.prefix(8)).lowercased(), httpPort: Int = 18_580) {
        self.binary = binary
        self.servicesScript = servicesScript
        self.databaseURL = databaseURL
        self.amqpURL = amqpURL
        self.workDirectory = workDirectory
        self.tag = tag
        self.httpPort = httpPort
    }
}
