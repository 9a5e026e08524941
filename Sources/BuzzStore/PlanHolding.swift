import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// One device's standing on one plan, as recorded from its `$local.scheduled` and
/// `$local.released` events (a row of `acknowledgments`), with whether that device still
/// counts for the run's subscriber.
public struct PlanHolding: Sendable, Equatable {
    /// `<runId>/<stepName>`.
    public var localId: String
    /// The device's push token (lowercase hex); empty for clients that do not say.
    public var device: String
    public var messageId: String?
    /// When the server recorded the acknowledgment at ``scheduledAt`` (while only a release
    /// has arrived, when that was recorded).
    public var acknowledgedAt: Date
    /// The device's time of its latest `$local.scheduled`.
    public var scheduledAt: Date?
    /// The device's time of its latest `$local.released`.
    public var releasedAt: Date?
    /// Whether the device still counts for the run's subscriber: an active device of that
    /// subscriber with this token, or an acknowledgment that names no device. False for a
    /// phone that logged out, moved to another subscriber or whose token APNs refused.
    public var deviceCounts: Bool

    public init(localId: String, device: String, messageId: String?, acknowledgedAt: Date, scheduledAt: Date?,
                releasedAt: Date?, deviceCounts: Bool) {
        self.localId = localId
        self.device = device
        self.messageId = messageId
        self.acknowledgedAt = acknowledgedAt
        self.scheduledAt = scheduledAt
        self.releasedAt = releasedAt
        self.deviceCounts = deviceCounts
    }

    /// Whether the device holds the plan by its own latest words: it acknowledged it, and
    /// released it (if ever) only before that acknowledgment.
    public var holds: Bool {
        guard let scheduledAt else { return false }
        return releasedAt.map { $0 < scheduledAt } ?? true
    }

    /// Whether this device's acknowledgment makes the window count as acknowledged.
    public var counts: Bool { deviceCounts && holds }

    /// The counting rule: a window counts as acknowledged iff some device that still counts
    /// for the subscriber (``deviceCounts``) acknowledged it and has not released it
    /// since (``holds``). Then `.acknowledged`, at the earliest time such an
    /// acknowledgment was recorded. If devices said something but none of them holds it now,
    /// `.released`, with the reason the fallback will give. Nil when no device said anything.
    ///
    /// A run that learnt an acknowledgment no row records any more (a new install of the app
    /// retired what the old one acknowledged, DESIGN §4b) is told `.released` with
    /// `noAcknowledgingDeviceHoldsIt`: the run follows the table, so the engine decides a
    /// window at its moment as the pipeline's `WindowDecider` would.
    package static func standing(of window: LocalWindowRecord, holdings: [PlanHolding]) -> (RunInput, Date)? {
        if let standing = standing(localId: window.localId, messageId: window.plan.messageId, holdings: holdings) { return standing }
        guard window.acknowledged else { return nil }
        return (.released(localId: window.localId, messageId: window.plan.messageId,
                          reason: RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt), Date(timeIntervalSince1970: 0))
    }

    /// ``standing(of:holdings:)`` for the plan `localId` with `messageId`, without its run
    /// (the scheduler settling windows at their moment).
    package static func standing(localId: String, messageId: String, holdings: [PlanHolding]) -> (RunInput, Date)? {
        let said = holdings.filter { $0.localId == localId && ($0.messageId == nil || $0.messageId == messageId) }
        guard !said.isEmpty else { return nil }
        let holding = said.filter(\.counts)
        if !holding.isEmpty {
            let at = holding.map(\.acknowledgedAt).min() ?? Date(timeIntervalSince1970: 0)
            return (.acknowledged(localId: localId, messageId: messageId), at)
        }
        let reason = said.allSatisfy(\.deviceCounts) ? RunSummary.LocalWindow.Fallback.releasedByEveryDevice
                                                     : RunSummary.LocalWindow.Fallback.noAcknowledgingDeviceHoldsIt
        return (.released(localId: localId, messageId: messageId, reason: reason), Date(timeIntervalSince1970: 0))
    }
}
