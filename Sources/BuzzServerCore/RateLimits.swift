/// The API's request limits (token buckets: `perSecond` sustained, `burst` at once). Over a
/// limit the API answers `429 rate_limited` with `Retry-After` (docs/contract.md §4b).
public struct RateLimits: Sendable, Equatable, EnvironmentSettings {
    /// Requests a second per secret key (a tenant's backend). Default 20,000, burst 40,000:
    /// above what one API process serves here, so it stops a runaway client without ever
    /// slowing a well-behaved backend.
    public var keyPerSecond: Int = 20_000
    public var keyBurst: Int = 40_000
    /// Requests a second per subscriber token (one device, or all devices of one subscriber
    /// using the same token). The publishable key itself is not limited, because every device
    /// of the tenant shares it. Default 20, burst 200 (a phone handed dozens of plans at once
    /// acknowledges and syncs in a burst).
    public var subscriberPerSecond: Int = 20
    public var subscriberBurst: Int = 200
    /// Events a second per subscriber (whatever tokens its phones hold), counted one by one whatever the batching: a
    /// phone cannot flood the shared lanes with big batches. Default 50, burst 500 (a crowded
    /// phone acknowledges 72 plans at once, from two devices).
    public var subscriberEventsPerSecond: Int = 50
    public var subscriberEventBurst: Int = 500
    /// The most events in one request made with the publishable key (the SDK sends 50).
    /// Default 100; a larger batch is `413 too_many_events`.
    public var deviceBatchMax: Int = 100
    /// The largest body a request made with the publishable key may carry, in bytes, refused
    /// from its `Content-Length` before it is read (`413`). Default 256 KiB: a full batch of
    /// events with generous properties (servers keep the 1 MiB limit).
    public var deviceBodyMaxBytes: Int = 256 * 1024
    /// Device requests a second, per tenant, whose subscriber token this API process has not
    /// yet seen verified: the first request of each phone, and every request with a made-up
    /// token. Default 2,000, burst 20,000 (a fleet of phones launching at once).
    public var unverifiedDevicePerSecond: Int = 2_000
    public var unverifiedDeviceBurst: Int = 20_000
    /// PostgreSQL lookups a second for keys the API has not seen (or no longer has cached),
    /// across all callers: a flood of made-up keys costs at most this many queries. Each
    /// unknown key is then remembered for a minute. Default 50, burst 200.
    public var keyLookupsPerSecond: Int = 50
    public var keyLookupBurst: Int = 200

    public init() {}

    /// Each rate's burst is at least the rate.
    public static var settings: [Setting<Self>] {
        func limit(_ rate: String, _ rateField: WritableKeyPath<Self, Int>, _ burst: String,
                   _ burstField: WritableKeyPath<Self, Int>) -> [Setting<Self>] {
            [.number("BUZZKIT_RATE_" + rate, rateField, in: 1...10_000_000),
             .number("BUZZKIT_RATE_" + burst, burstField, in: { min($0[keyPath: rateField], 10_000_000)...10_000_000 }, note: " (BUZZKIT_RATE_\(rate))")]
        }
        return limit("KEY_PER_SECOND", \.keyPerSecond, "KEY_BURST", \.keyBurst)
            + limit("SUBSCRIBER_PER_SECOND", \.subscriberPerSecond, "SUBSCRIBER_BURST", \.subscriberBurst)
            + limit("SUBSCRIBER_EVENTS_PER_SECOND", \.subscriberEventsPerSecond, "SUBSCRIBER_EVENT_BURST", \.subscriberEventBurst)
            + limit("KEY_LOOKUPS_PER_SECOND", \.keyLookupsPerSecond, "KEY_LOOKUP_BURST", \.keyLookupBurst)
            + limit("UNVERIFIED_DEVICE_PER_SECOND", \.unverifiedDevicePerSecond, "UNVERIFIED_DEVICE_BURST", \.unverifiedDeviceBurst)
            + [.number("BUZZKIT_RATE_DEVICE_BATCH_MAX", \.deviceBatchMax, in: 1...1000),
               .number("BUZZKIT_RATE_DEVICE_BODY_MAX_BYTES", \.deviceBodyMaxBytes, in: 1024...(1 << 20), unit: "bytes")]
    }
}
