import BuzzKitWire
import Foundation

/// The SDK's persisted knowledge of plans: the scheduled and parked plans, the `cancelOn`
/// registry and recent cancellations. Stored as one value, so the three never disagree
/// after a crash.
public struct PlanBook: Sendable, Hashable, Codable {
    /// Plans by local id.
    public private(set) var records: [String: PlanRecord] = [:]
    /// Event names → local ids they cancel.
    public private(set) var registry = CancelOnRegistry()
    /// Recent cancellations, oldest first.
    public private(set) var tombstones: [CancelTombstone] = []

    /// How long a cancellation is remembered. Plan pushes expire at their moment, so a plan
    /// older than this cannot arrive any more.
    public static let tombstoneLifetime: TimeInterval = 14 * 86_400
    /// The most cancellations remembered.
    public static let tombstoneLimit = 1_000

    /// An empty book.
    public init() {}

    /// Adds or replaces a record and registers its plan's `cancelOn` names.
    mutating func insert(_ record: PlanRecord) {
        remove(localId: record.localId)
        records[record.localId] = record
        registry.register(record.plan.cancelOn, localId: record.localId)
    }

    /// Registers a request that is not a plan (a snoozed notification) under `eventNames`, so
    /// tracking one of them removes it too.
    mutating func register(_ eventNames: [String], requestId: String) {
        registry.register(eventNames, localId: requestId)
    }

    /// Removes a record and its registrations.
    @discardableResult
    mutating func remove(localId: String) -> PlanRecord? {
        registry.remove(localId: localId)
        return records.removeValue(forKey: localId)
    }

    /// Changes a record in place, if it exists.
    mutating func update(_ localId: String, _ change: (inout PlanRecord) -> Void) {
        guard var record = records[localId] else { return }
        change(&record)
        records[localId] = record
    }

    /// Marks the records whose acknowledgment is among `eventIds` as confirmed; returns
    /// their local ids.
    mutating func confirmAcknowledgments(_ eventIds: Set<String>) -> [String] {
        let ids = records.values.filter { $0.acknowledgmentEventId.map(eventIds.contains) ?? false }.map(\.localId)
        for id in ids { update(id) { $0.acknowledgmentConfirmed = true } }
        return ids.sorted()
    }

    /// Remembers a cancellation, forgetting expired and surplus ones.
    mutating func addTombstone(_ tombstone: CancelTombstone) {
        tombstones.removeAll { $0.id == tombstone.id && $0.matchesPrefix == tombstone.matchesPrefix }
        tombstones.append(tombstone)
        let oldest = tombstone.recordedAt.addingTimeInterval(-Self.tombstoneLifetime)
        tombstones.removeAll { $0.recordedAt < oldest }
        if tombstones.count > Self.tombstoneLimit { tombstones.removeFirst(tombstones.count - Self.tombstoneLimit) }
    }

    /// The cancellation that rules out `localId`, if any.
    public func tombstone(for localId: String) -> CancelTombstone? {
        tombstones.last { $0.matches(localId: localId) }
    }

    /// Records in a given state, soonest first in `zone`.
    public func records(in state: PlanRecord.State, zone: TimeZone) -> [PlanRecord] {
        records.values.filter { $0.state == state }
            .sorted { ($0.fireInstant(in: zone), $0.localId) < ($1.fireInstant(in: zone), $1.localId) }
    }
}
