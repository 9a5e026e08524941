import AMQPClient
import BuzzEngine
import BuzzServerCore
import Foundation

/// Settings shared by every BuzzKit process. `main` reads them from the environment with
/// ``init(environment:)``; everything else receives this struct.
///
/// | Variable | Default | Meaning |
/// |---|---|---|
/// | `BUZZKIT_DATABASE_URL` | `postgres://postgres@127.0.0.1:55432/buzzkit` | PostgreSQL URL; several hosts (`postgres://h1:5432,h2:5432/db?target_session_attrs=read-write`) for failover |
/// | `BUZZKIT_AMQP_URL` | `amqp://guest:guest@127.0.0.1:55672/%2f` | RabbitMQ URL, or a cluster's node URLs separated by commas |
/// | `BUZZKIT_HTTP_PORT` | `8080` | API port |
/// | `BUZZKIT_DB_POOL_SIZE` | `8` | PostgreSQL connections per process |
/// | `BUZZKIT_DB_SCHEMA` | `public` | schema that holds BuzzKit's tables |
/// | `BUZZKIT_PREFETCH` | `200` | unacknowledged messages per consumer |
/// | `BUZZKIT_SHUTDOWN_GRACE_SECONDS` | `20` | drain time after SIGTERM |
/// | `BUZZKIT_OUTAGE_HOLD_SECONDS` | `120` | how long a worker holds a message through a PostgreSQL or RabbitMQ outage before returning it to its queue (as a copy that has used no delivery attempt) |
/// | `BUZZKIT_LOG_FORMAT` | `json` | `json` or `human` |
/// | `BUZZKIT_QUEUE_PREFIX` | empty | prefix of every exchange and queue name (isolates environments on one broker) |
/// | `BUZZKIT_WORKER_THREADS` | `2` | worker threads per queue |
/// | `BUZZKIT_BATCH_SIZE` | `100` | most deliveries per transaction |
/// | `BUZZKIT_BATCH_LINGER_MS` | `10` | how long a worker lets the oldest waiting message wait for a fuller batch (0: take what is there) |
/// | `BUZZKIT_APNS_KEY_FILE` | none | the team's `.p8` key (required to send) |
/// | `BUZZKIT_APNS_KEY_ID`, `BUZZKIT_APNS_TEAM_ID` | none | the key's id and the team id |
/// | `BUZZKIT_APNS_URL` | Apple's host per device environment | APNs base URL (a stand-in or proxy) |
/// | `BUZZKIT_APNS_CA_FILE` | none | extra trusted CA for `BUZZKIT_APNS_URL` |
/// | `BUZZKIT_APNS_CONNECTIONS` | `2` | HTTP/2 connections to APNs per process |
/// | `BUZZKIT_RUN_STATE_FORM` | `compact` | `compact` or `verbose` (``RunStateForm``) |
public struct Configuration: Sendable, Equatable, EnvironmentSettings {
    public var databaseURL: String
    public var amqpURL: String
    public var httpPort: Int
    public var databasePoolSize: Int
    public var databaseSchema: String
    public var prefetch: Int
    public var shutdownGraceSeconds: Double
    public var outageHoldSeconds: Double
    public var logFormat: String
    public var workerThreads: Int
    public var queuePrefix: String
    public var batchSize: Int
    /// Milliseconds a message may wait for a fuller batch (`BUZZKIT_BATCH_LINGER_MS`).
    public var batchLingerMilliseconds = 50
    public var apnsKeyFile: String?
    public var apnsKeyId: String?
    public var apnsTeamId: String?
    public var apnsURL: String?
    public var apnsCAFile: String?
    public var apnsConnections: Int
    /// Active devices a subscriber may have; registering one more turns the least recently
    /// registered inactive (`BUZZKIT_MAX_DEVICES_PER_SUBSCRIBER`, default 10).
    public var maxDevicesPerSubscriber = 10
    /// Relay loops in each `buzzkit scheduler` (`BUZZKIT_SCHEDULER_RELAYS`, default 2): while
    /// one waits for its confirms and commit, another claims the next due batch.
    public var schedulerRelays = 2
    /// Outbox rows a `buzzkit scheduler` claims between two vacuums of the outbox
    /// (`BUZZKIT_SCHEDULER_VACUUM_EVERY`, default 20000; 0 leaves it to autovacuum). Every claim
    /// and every look at the next due time walk the due index from its oldest entry, through
    /// the entries of rows deleted since the last vacuum; autovacuum comes at most once a
    /// minute, when a steady 3,500 timers a second leave 200,000 of them.
    public var schedulerVacuumEvery = 20_000
    /// The form run states are written in (`BUZZKIT_RUN_STATE_FORM`, default `compact`; see
    /// ``RunStateForm``). Both are read. `verbose` is for a fleet upgraded process by process
    /// from a release that reads only it, until none of those processes is left.
    public var runStateForm = RunStateForm.compact
    /// The longest a subscriber token may still be valid for, in days; a token that expires
    /// later is refused (`BUZZKIT_MAX_SUBSCRIBER_TOKEN_DAYS`, default 30).
    public var maxSubscriberTokenDays = 30
    /// Connections one client address may hold at the API; 0 for none (behind a load balancer,
    /// where every client shares its address) (`BUZZKIT_HTTP_CONNECTIONS_PER_IP`, default 256).
    public var httpConnectionsPerIP = 256
    /// Seconds a connection may stay idle, also in the middle of a request, before the API
    /// closes it (`BUZZKIT_HTTP_IDLE_SECONDS`, default 15).
    public var httpIdleSeconds = 15
    /// Seconds the API gives a request's headers and body to arrive, from when its connection
    /// began waiting for it; a client trickling bytes to stay under the idle timeout is cut
    /// off here (`BUZZKIT_HTTP_REQUEST_SECONDS`, default 30).
    public var httpRequestSeconds = 30
    /// The API's request limits (`BUZZKIT_RATE_*`, see ``RateLimits``).
    public var rateLimits = RateLimits()
    /// Interactive before bulk (`BUZZKIT_LANE_*`, see ``LaneSettings``).
    public var lanes = LaneSettings()
    /// What is kept for how long (`BUZZKIT_RETENTION_*`, see ``RetentionSettings``).
    public var retention = RetentionSettings()
    /// How settled windows reach their runs (``CompletionSettings``).
    public var completion = CompletionSettings()

    /// The documented defaults (they match `scripts/services.sh`).
    public init() {
        databaseURL = "postgres://postgres@127.0.0.1:55432/buzzkit"
        amqpURL = "amqp://guest:guest@127.0.0.1:55672/%2f"
        httpPort = 8080
        databasePoolSize = 8
        databaseSchema = "public"
        prefetch = 200
        shutdownGraceSeconds = 20
        outageHoldSeconds = 120
        logFormat = "json"
        workerThreads = 2
        queuePrefix = ""
        batchSize = 100
        apnsConnections = 2
    }

    /// Reads `BUZZKIT_*` variables over the defaults and checks them. Call it from `main` only.
    public init(environment: [String: String]) throws {
        self.init()
        try read(environment)
        rateLimits = try RateLimits(environment: environment)
        lanes = try LaneSettings(environment: environment)
        retention = try RetentionSettings(environment: environment)
        completion = try CompletionSettings(environment: environment)
        try validate()
    }

    public static var settings: [Setting<Self>] {
        let names: Set<Character> = ["_"], prefix: Set<Character> = [".", "_", "-"]
        return [
            .text("BUZZKIT_DATABASE_URL", \.databaseURL),
            .text("BUZZKIT_AMQP_URL", \.amqpURL),
            .number("BUZZKIT_HTTP_PORT", \.httpPort, in: 1...65535),
            .number("BUZZKIT_DB_POOL_SIZE", \.databasePoolSize, in: 1...500),
            .text("BUZZKIT_DB_SCHEMA", \.databaseSchema, rule: "may only contain letters, digits and _") {
                !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || names.contains($0) }
            },
            .number("BUZZKIT_PREFETCH", \.prefetch, in: 1...65535),
            .number("BUZZKIT_SHUTDOWN_GRACE_SECONDS", \.shutdownGraceSeconds, in: 0...3600, unit: "seconds"),
            .number("BUZZKIT_OUTAGE_HOLD_SECONDS", \.outageHoldSeconds, above: 0, atMost: 3600, unit: "seconds"),
            .number("BUZZKIT_WORKER_THREADS", \.workerThreads, in: 1...64),
            .number("BUZZKIT_BATCH_SIZE", \.batchSize, in: 1...5000),
            .number("BUZZKIT_BATCH_LINGER_MS", \.batchLingerMilliseconds, in: 0...1000),
            .number("BUZZKIT_APNS_CONNECTIONS", \.apnsConnections, in: 1...16),
            .number("BUZZKIT_SCHEDULER_RELAYS", \.schedulerRelays, in: 1...16),
            .number("BUZZKIT_SCHEDULER_VACUUM_EVERY", \.schedulerVacuumEvery, in: 0...100_000_000),
            .choice("BUZZKIT_RUN_STATE_FORM", \.runStateForm),
            .optionalText("BUZZKIT_APNS_KEY_FILE", \.apnsKeyFile),
            .optionalText("BUZZKIT_APNS_KEY_ID", \.apnsKeyId),
            .optionalText("BUZZKIT_APNS_TEAM_ID", \.apnsTeamId),
            .optionalText("BUZZKIT_APNS_URL", \.apnsURL),
            .optionalText("BUZZKIT_APNS_CA_FILE", \.apnsCAFile),
            .text("BUZZKIT_QUEUE_PREFIX", \.queuePrefix, rule: "may only contain letters, digits, '.', '_' and '-'") {
                $0.allSatisfy { $0.isLetter || $0.isNumber || prefix.contains($0) }
            },
            .text("BUZZKIT_LOG_FORMAT", \.logFormat, rule: "must be json or human") { $0 == "json" || $0 == "human" },
            .number("BUZZKIT_MAX_DEVICES_PER_SUBSCRIBER", \.maxDevicesPerSubscriber, in: 1...1000),
            .number("BUZZKIT_MAX_SUBSCRIBER_TOKEN_DAYS", \.maxSubscriberTokenDays, in: 1...3650, unit: "days"),
            .number("BUZZKIT_HTTP_CONNECTIONS_PER_IP", \.httpConnectionsPerIP, in: 0...100_000, note: " (no limit)"),
            .number("BUZZKIT_HTTP_IDLE_SECONDS", \.httpIdleSeconds, in: 1...3600, unit: "seconds"),
            .number("BUZZKIT_HTTP_REQUEST_SECONDS", \.httpRequestSeconds, in: 1...3600, unit: "seconds"),
        ]
    }

    /// Checks every field and names the first wrong one.
    public func validate() throws {
        guard databaseURL.hasPrefix("postgres://") || databaseURL.hasPrefix("postgresql://") else {
            // Only the scheme is echoed: the value may hold a password.
            let scheme = databaseURL.range(of: "://").map { String(databaseURL[..<$0.lowerBound]) } ?? "no scheme"
            throw ServerError(.configuration, "must be a postgres:// URL, got \(scheme)", field: "BUZZKIT_DATABASE_URL")
        }
        do {
            _ = try AMQPEndpoints(amqpURL)
        } catch let error as AMQPError {
            throw ServerError(.configuration, error.message, field: "BUZZKIT_AMQP_URL")
        }
        try checkSettings()
        if apnsKeyFile != nil && (apnsKeyId == nil || apnsTeamId == nil) {
            throw ServerError(.configuration, "BUZZKIT_APNS_KEY_FILE needs BUZZKIT_APNS_KEY_ID and BUZZKIT_APNS_TEAM_ID too",
                              field: apnsKeyId == nil ? "BUZZKIT_APNS_KEY_ID" : "BUZZKIT_APNS_TEAM_ID")
        }
        try rateLimits.checkSettings()
        try lanes.checkSettings()
        try retention.checkSettings()
        try completion.checkSettings()
    }
}
