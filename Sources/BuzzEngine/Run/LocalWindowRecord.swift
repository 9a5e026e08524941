import BuzzKitWire
import Foundation

/// What a run knows about one local window: the plan (kept for dry runs and for the
/// fallback), the moment, delivery, acknowledgment or release, and the fallback decision.
public struct LocalWindowRecord: Sendable, Hashable, Codable {
    /// The plan as handed (or, in a dry run or without a subscriber, as it would have been).
    public let plan: LocalPlan
    /// When the notification is due, after any quiet-hours shift.
    public let moment: Date
    /// Whether quiet hours moved the moment.
    public let shiftedByQuietHours: Bool
    /// Whether a ``RunAction/sendLocalPlan(_:)`` was emitted for this window.
    public internal(set) var planSent: Bool
    /// The largest device count reported with ``RunInput/planDelivered(localId:deviceCount:)``.
    public internal(set) var planSentTo: Int
    /// Whether a device acknowledged the plan and (before the moment) still holds it.
    public internal(set) var acknowledged: Bool
    /// When the acknowledgment that counts was handled (kept from the first while one counts;
    /// cleared by a release).
    public internal(set) var acknowledgedAt: Date?
    /// Set while no device holds the plan any more though one acknowledged it
    /// (``RunInput/released(localId:messageId:reason:)``): the fallback's reason if it stays
    /// so until the moment. Stored only when set, so states written before it read unchanged.
    public internal(set) var releaseReason: String?
    /// The decision made at the moment; `nil` before it.
    public internal(set) var fallback: RunSummary.LocalWindow.Fallback?

    init(plan: LocalPlan, moment: Date, shiftedByQuietHours: Bool, planSent: Bool) {
        self.plan = plan
        self.moment = moment
        self.shiftedByQuietHours = shiftedByQuietHours
        self.planSent = planSent
        self.planSentTo = 0
        self.acknowledged = false
        self.acknowledgedAt = nil
        self.releaseReason = nil
        self.fallback = nil
    }

    /// `<runId>/<stepName>`.
    public var localId: String { plan.id }

    /// The summary's `local` member.
    public var summary: RunSummary.LocalWindow {
        RunSummary.LocalWindow(localId: plan.id, moment: moment, fireAt: plan.fireAt, shiftedByQuietHours: shiftedByQuietHours,
                           planSentTo: planSentTo, acknowledged: acknowledged, acknowledgedAt: acknowledgedAt, fallback: fallback)
    }

    /// The stored form (``init(json:path:)`` and ``write(to:)`` in `*+JSON.swift`: one mapping for Codable too).
    public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
    public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }
}
