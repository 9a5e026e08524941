import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// The part of ``StoreTransaction`` for tenants, subscribers, devices and workflows, as the
/// pipeline reads them (and a device turned inactive).
public protocol DirectoryQueries {
    func tenant(_ id: String) throws -> TenantRecord?
    func subscriber(tenantId: String, id: String) throws -> SubscriberRecord?
    /// The subscribers of one tenant among `ids` (those that exist), in one round trip.
    func subscribers(tenantId: String, ids: [String]) throws -> [SubscriberRecord]
    func activeDevices(tenantId: String, subscriberId: String) throws -> [DeviceRecord]
    /// Active devices of many subscribers of one tenant, by subscriber id.
    func activeDevices(tenantId: String, subscriberIds: [String]) throws -> [String: [DeviceRecord]]
    /// Turns a device inactive at `at`. `deadSince`: when APNs last found the token invalid
    /// (its 410's `timestamp`); a device that registered again after that instant keeps its
    /// token. Nil: unconditionally.
    func deactivateDevice(_ id: UUID, reason: String, at: Date, deadSince: Date?) throws
    /// Current workflow versions whose trigger is `event`.
    func workflows(tenantId: String, triggeredBy event: String) throws -> [WorkflowRecord]
    /// Every event name that a current workflow of the tenant cancels on (a cheap filter
    /// before looking for open runs to cancel).
    func cancelEventNames(tenantId: String) throws -> Set<String>
    /// The current version of the workflow `key`.
    func currentWorkflow(tenantId: String, key: String) throws -> WorkflowRecord?
}
