import BuzzServerCore
import Foundation

/// What one device said about one plan: `$local.scheduled` (it scheduled the plan and holds
/// it) or `$local.released` (it let go of a plan it had acknowledged), at the device's own
/// time. `ack-ingest` records these per device (``StoreTransaction/recordAcknowledgments(tenantId:_:at:)``),
/// keeping each device's latest word of each kind, so the order in which they are applied,
/// and repeats, do not matter.
public struct DeviceAcknowledgment: Sendable, Equatable {
    /// Which SDK event it was.
    public enum Kind: Sendable, Equatable {
        /// `$local.scheduled`: the device holds the plan from `at` on.
        case scheduled
        /// `$local.released`: the device no longer holds the plan from `at` on.
        case released
    }

    public var subscriberId: String
    /// `<runId>/<stepName>`.
    public var localId: String
    /// The device's push token in lowercase hex (`properties.device`); empty for clients that
    /// do not say which device they are (they count as before: per subscriber).
    public var device: String
    public var messageId: String?
    public var kind: Kind
    /// The event's `timestamp` (the device's clock): orders this device's words on the plan.
    public var at: Date

    public init(subscriberId: String, localId: String, device: String, messageId: String?, kind: Kind, at: Date) {
        self.subscriberId = subscriberId
        self.localId = localId
        self.device = device
        self.messageId = messageId
        self.kind = kind
        self.at = at
    }

    /// One device's latest word of each kind on one plan.
    public typealias Latest = (subscriberId: String, localId: String, device: String, messageId: String?, scheduledAt: Date?, releasedAt: Date?)

    /// `facts` folded to one entry per (subscriber, plan, device) with the latest time of each
    /// kind (one statement may change a row only once), in key order (concurrent batches then
    /// lock shared rows in the same order and never deadlock).
    public static func latest(_ facts: [DeviceAcknowledgment]) -> [Latest] {
        var out: [Latest] = []
        var index: [String: Int] = [:]
        for fact in facts {
            let key = fact.subscriberId + "\u{0}" + fact.localId + "\u{0}" + fact.device
            let i: Int
            if let found = index[key] {
                i = found
            } else {
                i = out.count
                index[key] = i
                out.append((fact.subscriberId, fact.localId, fact.device, nil, nil, nil))
            }
            if out[i].messageId == nil { out[i].messageId = fact.messageId }
            switch fact.kind {
            case .scheduled: out[i].scheduledAt = max(out[i].scheduledAt ?? fact.at, fact.at)
            case .released: out[i].releasedAt = max(out[i].releasedAt ?? fact.at, fact.at)
            }
        }
        return out.sorted { ($0.subscriberId, $0.localId, $0.device) < ($1.subscriberId, $1.localId, $1.device) }
    }
}
