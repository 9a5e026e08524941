import Foundation

/// What a fleet run does.
public struct FleetConfiguration: Sendable {
    /// The API the phones and the backend call.
    public var apiBaseURL: URL
    /// The tenant's keys (`buzzkit tenant create NAME --json`).
    public var secretKey: String
    public var publishableKey: String
    public var signingSecret: String
    /// Subscribers to simulate (a two-device subscriber has two phones).
    public var subscribers: Int
    /// The behaviours, dealt out in turn.
    public var mix: [Behaviour]
    /// Seconds from the events to the planned moment.
    public var leadSeconds: Double
    /// How long an offline phone stays offline after its plan arrives.
    public var offlineSeconds: Double
    /// How long before the moment the person completes the workout.
    public var completeBefore: Double
    /// How long to wait after the moment before the report.
    public var settleSeconds: Double
    /// The app's bundle id (the APNs topic).
    public var topic: String
    /// Zones the phones live in.
    public var zones: [String]
    /// A tag that keeps subscriber ids of different runs apart.
    public var tag: String
    /// Called once a second with a progress line (the demo prints it).
    public var progress: (@Sendable (String) -> Void)?
    /// The subscribers are split into this many waves, posted `waveInterval` seconds apart,
    /// each with its own moment `leadSeconds` after it is posted (a steady load for drills).
    public var waves: Int = 1
    public var waveInterval: Double = 10
    /// How long the backend keeps retrying a call the API cannot take (5xx, no connection).
    public var retryWindow: Double = 90
    /// Plans per crowded subscriber (more than iOS's 64), their moments `crowdedSpacing`
    /// seconds apart from the wave's moment.
    public var crowdedPlans = 72
    public var crowdedSpacing: Double = 0.25
    /// The app's own far-ahead reminders on the crowded one of two phones.
    public var crowdedAppRequests = 24
    /// The reminder's snooze button's duration, in seconds (the fleet runs in real time).
    public var snoozeSeconds = 4
    /// The seed of the fleet's random choices (who opens the app when, which push APNs keeps).
    public var seed: UInt64 = 7
    /// Called once the wave times are fixed (after every phone registered).
    public var onWavesPlanned: (@Sendable ([FleetWave]) -> Void)?

    public init(apiBaseURL: URL, secretKey: String, publishableKey: String, signingSecret: String, subscribers: Int = 50,
                mix: [Behaviour] = Behaviour.allCases, leadSeconds: Double = 12,
                offlineSeconds: Double = 2, completeBefore: Double = 4, settleSeconds: Double = 8,
                topic: String = "com.example.gym", zones: [String] = ["Europe/Berlin", "America/New_York", "Asia/Kathmandu", "UTC"],
                tag: String = String(UUID().uuidString.prefix(6)).lowercased(), progress: (@Sendable (String) -> Void)? = nil) {
        self.apiBaseURL = apiBaseURL
        self.secretKey = secretKey
        self.publishableKey = publishableKey
        self.signingSecret = signingSecret
        self.subscribers = subscribers
        self.mix = mix
        self.leadSeconds = leadSeconds
        self.offlineSeconds = offlineSeconds
        self.completeBefore = completeBefore
        self.settleSeconds = settleSeconds
        self.topic = topic
        self.zones = zones
        self.tag = tag
        self.progress = progress
    }
}
