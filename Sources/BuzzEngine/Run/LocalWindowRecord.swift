import BuzzKitWire
import Foundation

/// What a run knows about one local window: the plan (kept for dry runs and for the
/// fallback), the moment, delivery and acknowledgment, and the fallback decision.
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
    /// Whether a device acknowledged the plan.
    public internal(set) var acknowledged: Bool
    /// When the first acknowledgment was handled.
    public internal(set) var acknowledgedAt: Date?
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
        self.fallback = nil
    }

    /// `<runId>/<stepName>`.
    public var localId: String { plan.id }

    /// The summary's `local` member.
    public var summary: RunSummary.LocalWindow {
        RunSummary.LocalWindow(localId: plan.id, moment: moment, fireAt: plan.fireAt, shiftedByQuietHours: shiftedByQuietHours,
                           planSentTo: planSentTo, acknowledged: acknowledged, acknowledgedAt: acknowledgedAt, fallback: fallback)
    }

    private enum CodingKeys: String, CodingKey {
        case plan, moment, shiftedByQuietHours, planSent, planSentTo, acknowledged, acknowledgedAt, fallback
    }

    /// Decodes the stored form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        plan = try container.decode(LocalPlan.self, forKey: .plan)
        moment = try container.decodeInstant(forKey: .moment)
        shiftedByQuietHours = try container.decode(Bool.self, forKey: .shiftedByQuietHours)
        planSent = try container.decode(Bool.self, forKey: .planSent)
        planSentTo = try container.decode(Int.self, forKey: .planSentTo)
        acknowledged = try container.decode(Bool.self, forKey: .acknowledged)
        acknowledgedAt = try container.decodeInstantIfPresent(forKey: .acknowledgedAt)
        fallback = try container.decodeIfPresent(RunSummary.LocalWindow.Fallback.self, forKey: .fallback)
    }

    /// Encodes the stored form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(plan, forKey: .plan)
        try container.encodeInstant(moment, forKey: .moment)
        try container.encode(shiftedByQuietHours, forKey: .shiftedByQuietHours)
        try container.encode(planSent, forKey: .planSent)
        try container.encode(planSentTo, forKey: .planSentTo)
        try container.encode(acknowledged, forKey: .acknowledged)
        try container.encodeInstantOrNull(acknowledgedAt, forKey: .acknowledgedAt)
        try container.encodeIfPresent(fallback, forKey: .fallback)
    }
}
