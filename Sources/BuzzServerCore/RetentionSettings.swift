import Foundation

/// How long BuzzKit keeps what it no longer needs (`BUZZKIT_RETENTION_*`), removed by the
/// ``RetentionSweeper`` that `buzzkit scheduler` runs.
public struct RetentionSettings: Sendable, Equatable, EnvironmentSettings {
    /// Days a processed event id is remembered for deduplication
    /// (`BUZZKIT_RETENTION_EVENT_ID_DAYS`, default 7). A client retrying an event later than
    /// this may have it handled twice.
    public var eventIdDays: Double = 7
    /// Days a finished run (completed, cancelled or failed) is kept with its deliveries,
    /// acknowledgments, opens and plans after it last changed (`BUZZKIT_RETENTION_RUN_DAYS`,
    /// default 30).
    public var runDays: Double = 30
    /// Days an inactive device (signed out, unregistered, or a token APNs called dead) is
    /// kept after it became inactive (`BUZZKIT_RETENTION_INACTIVE_DEVICE_DAYS`, default 30):
    /// long enough for support to see why a phone stopped getting notifications.
    public var inactiveDeviceDays: Double = 30
    /// Days an erased subscriber's tombstone refuses its devices' late traffic
    /// (`BUZZKIT_RETENTION_ERASED_SUBSCRIBER_DAYS`, default 30: the longest a subscriber token
    /// may be valid, `BUZZKIT_MAX_SUBSCRIBER_TOKEN_DAYS`, so no token minted before the erasure
    /// outlives it).
    public var erasedSubscriberDays: Double = 30
    /// Rows removed per statement (`BUZZKIT_RETENTION_BATCH`, default 1,000): each is a short
    /// transaction, so no lock is held for long.
    public var batch = 1_000
    /// Seconds between two batches while a backlog drains (`BUZZKIT_RETENTION_PAUSE_SECONDS`,
    /// default 0.2): the sweeper works a fraction of the time, so the pipeline beside it keeps
    /// its pace; a longer pause drains slower and disturbs less.
    public var pauseSeconds: Double = 0.2
    /// Seconds between sweeps once nothing is left to remove (`BUZZKIT_RETENTION_INTERVAL_SECONDS`,
    /// default 60).
    public var intervalSeconds: Double = 60

    public init() {}

    public static var settings: [Setting<Self>] {
        [.number("BUZZKIT_RETENTION_EVENT_ID_DAYS", \.eventIdDays, above: 0, atMost: 3650, unit: "days"),
         .number("BUZZKIT_RETENTION_RUN_DAYS", \.runDays, above: 0, atMost: 3650, unit: "days"),
         .number("BUZZKIT_RETENTION_INACTIVE_DEVICE_DAYS", \.inactiveDeviceDays, above: 0, atMost: 3650, unit: "days"),
         .number("BUZZKIT_RETENTION_ERASED_SUBSCRIBER_DAYS", \.erasedSubscriberDays, above: 0, atMost: 3650, unit: "days"),
         .number("BUZZKIT_RETENTION_BATCH", \.batch, in: 1...100_000),
         .number("BUZZKIT_RETENTION_PAUSE_SECONDS", \.pauseSeconds, in: 0...60, unit: "seconds"),
         .number("BUZZKIT_RETENTION_INTERVAL_SECONDS", \.intervalSeconds, in: 0.01...86_400, unit: "seconds")]
    }
}
