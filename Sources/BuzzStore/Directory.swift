import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The directory port: tenants and their keys and settings, subscribers, devices and
/// workflows, what the API and the admin commands read and write outside the pipeline's
/// transactions. ``PostgresDirectory`` is the real one; ``InMemoryDirectory`` shares an
/// ``InMemoryStore``'s state, so an in-memory pipeline sees what it writes. Both pass the
/// same conformance suite.
public protocol Directory: Sendable {
    /// Throws when the storage behind it does not answer (`/readyz`).
    func ping() throws
    /// Creates a tenant with fresh keys; the keys are returned once and stored hashed.
    func createTenant(name: String, defaultTimezone: String) throws -> TenantCredentials
    /// The tenant and kind of a valid, unrevoked key (the secret compared in constant time).
    func authenticate(_ key: APIKey) throws -> (tenant: TenantRecord, kind: APIKey.Kind)?
    func tenant(_ id: String) throws -> TenantRecord?
    /// Changes only the settings given, on the row as it is: `quietHours` `.some(nil)` clears
    /// them. Other API processes are told (their key caches drop the tenant).
    func updateSettings(tenantId: String, quietHours: QuietHours??, defaultTimezone: String?, allowedTopics: [String]?) throws

    /// Creates another key of `kind` for the tenant and returns it (shown once); the old keys
    /// keep working until revoked.
    func createKey(tenantId: String, kind: APIKey.Kind) throws -> String
    /// Revokes a key by its id (the part between the underscores); every API process refuses
    /// it from then on. Throws `.notFound` for a key unknown or already revoked.
    func revokeKey(tenantId: String, keyId: String) throws
    /// The tenant's keys, newest first.
    func keys(tenantId: String) throws -> [KeyListing]
    /// Replaces the signing secret and returns the new one (shown once); the old one still
    /// verifies subscriber tokens for `grace` seconds.
    func rotateSigningSecret(tenantId: String, grace: TimeInterval) throws -> String

    /// Creates or replaces a subscriber's timezone and properties (and lifts an erasure's
    /// tombstone: the backend knows the person again).
    func putSubscriber(_ subscriber: SubscriberRecord) throws
    func subscriberExists(tenantId: String, id: String) throws -> Bool
    /// Sets the subscriber's timezone to the one its phone reports (device registration's
    /// `timezone`), leaving its properties; nothing when it is already that.
    func setSubscriberTimezone(tenantId: String, id: String, timezone: String) throws
    /// Which of `ids` were erased (`DELETE /v1/subscribers/{id}`) and not put again since:
    /// their tombstones refuse late device traffic until the retention sweeper removes them.
    func erasedSubscribers(tenantId: String, ids: [String]) throws -> Set<String>
    /// A subscriber with every device it has registered, active or not, oldest first
    /// (`GET /v1/subscribers/{id}`); nil when the tenant has no such subscriber.
    func subscriberProfile(tenantId: String, id: String) throws -> (subscriber: SubscriberRecord, devices: [DeviceRecord])?
    /// Registers a device token for a subscriber (re-activating it, or moving it from another
    /// subscriber of the same tenant), creating the subscriber if need be without touching a
    /// timezone or properties written meanwhile; past `maxActive` active devices the least
    /// recently registered turn inactive ("device limit"). A nil `authorization` keeps the one
    /// stored before. A new `installId` on the token retires what the old install acknowledged
    /// for open runs' windows; so does `replacing`, the install this one replaced on the phone
    /// (deleted and installed again, under another token), whose devices turn inactive
    /// ("reinstalled"). Returns the device id.
    @discardableResult
    func putDevice(_ device: DeviceRecord, maxActive: Int, replacing: String?) throws -> UUID
    /// Makes the subscriber's device with `token` inactive (an inactive one keeps its first
    /// reason and time).
    func deactivateDevice(tenantId: String, subscriberId: String, token: String, reason: String, at: Date) throws -> DeviceDeactivation
    /// The plans of the subscriber's live, non-dry runs whose moment is after `now`, in moment
    /// order (then local id): each exactly the `bk.local` object its silent push carried.
    func pendingPlans(tenantId: String, subscriberId: String, now: Date) throws -> [LocalPlan]

    /// Stores a new version of a validated workflow and makes it current. Returns the version.
    @discardableResult
    func putWorkflow(tenantId: String, definition: WorkflowDefinition, source: JSONValue) throws -> Int
    /// The current version of a workflow: its number and the JSON as stored.
    func workflow(tenantId: String, key: String) throws -> (version: Int, source: JSONValue)?
    /// Up to `limit` stored versions of a workflow, newest first, retired or not, and the
    /// current version's number (nil when retired or never stored).
    func workflowVersions(tenantId: String, key: String, limit: Int) throws -> (current: Int?, versions: [WorkflowVersion])
    /// The tenant's current (not retired) workflows, by key.
    func workflows(tenantId: String) throws -> [WorkflowListing]
    /// Retires a workflow: no new run starts from it; live runs go on. False when the tenant
    /// has no such current workflow.
    func retireWorkflow(tenantId: String, key: String, at: Date) throws -> Bool
}

extension Directory {
    public func createTenant(name: String) throws -> TenantCredentials { try createTenant(name: name, defaultTimezone: "UTC") }

    /// Sets quiet hours (nil clears them) and the default timezone.
    public func updateSettings(tenantId: String, quietHours: QuietHours?, defaultTimezone: String) throws {
        try updateSettings(tenantId: tenantId, quietHours: .some(quietHours), defaultTimezone: .some(defaultTimezone), allowedTopics: nil)
    }

    @discardableResult
    public func putDevice(_ device: DeviceRecord) throws -> UUID { try putDevice(device, maxActive: 10, replacing: nil) }

    @discardableResult
    public func putDevice(_ device: DeviceRecord, maxActive: Int) throws -> UUID { try putDevice(device, maxActive: maxActive, replacing: nil) }
}

/// A tenant's API key as listed (never its secret, which is stored only as a hash).
public struct KeyListing: Sendable, Codable, Equatable {
    public var id: String
    public var kind: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, kind: String, createdAt: Date, revokedAt: Date?) {
        self.id = id
        self.kind = kind
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// What ``Directory/deactivateDevice(tenantId:subscriberId:token:reason:at:)`` found.
public enum DeviceDeactivation: Sendable, Equatable {
    /// The device was active and is now inactive.
    case deactivated
    /// The device was already inactive (logged out before, or refused by APNs): nothing changed.
    case alreadyInactive
    /// No device of that subscriber has this token (unknown, or registered to another subscriber).
    case notFound
}
