/// What a run needs to know besides its definition and trigger: identity, dry-run flag,
/// and the subscriber's and tenant's settings.
///
/// `runId` and `dryRun` are fixed for the run's life. The other members may be refreshed
/// with ``RunState/refresh(hasSubscriber:subscriberTimeZone:tenantDefaultTimeZone:quietHours:)``
/// before each ``RunState/handle(_:now:)``; they are read when a wait or send begins.
public struct RunContext: Sendable, Hashable, Codable {
    /// The run's id; local ids are `<runId>/<stepName>`. Use an id that is not a prefix of
    /// another run's id (a UUID), because a device cancels by prefix.
    public let runId: String
    /// A dry run computes and records everything and never sends.
    public let dryRun: Bool
    /// Whether the subscriber exists. Without one nothing is sent and there is no fallback.
    public var hasSubscriber: Bool
    /// The subscriber's IANA `timezone`, if set.
    public var subscriberTimeZone: String?
    /// The tenant's `defaultTimezone`, if set.
    public var tenantDefaultTimeZone: String?
    /// The tenant's quiet hours, if set.
    public var quietHours: QuietHours?
    /// How far ahead an immediate local plan (a local send not right after a `waitUntil`)
    /// is due, in seconds, so devices can schedule and acknowledge it before the fallback
    /// check. Default 60.
    public var immediateLocalLead: Int

    /// A context from its parts.
    public init(runId: String, dryRun: Bool = false, hasSubscriber: Bool = true, subscriberTimeZone: String? = nil,
                tenantDefaultTimeZone: String? = nil, quietHours: QuietHours? = nil, immediateLocalLead: Int = 60) {
        self.runId = runId
        self.dryRun = dryRun
        self.hasSubscriber = hasSubscriber
        self.subscriberTimeZone = subscriberTimeZone
        self.tenantDefaultTimeZone = tenantDefaultTimeZone
        self.quietHours = quietHours
        self.immediateLocalLead = immediateLocalLead
    }

    /// The subscriber's zone: subscriber `timezone` → tenant `defaultTimezone` → UTC.
    public var subscriberZone: ZoneRules {
        ZoneRules.resolve(subscriber: subscriberTimeZone, tenantDefault: tenantDefaultTimeZone)
    }

    /// Whether sends go out: a live run with a subscriber.
    public var sendsLive: Bool { !dryRun && hasSubscriber }
}
