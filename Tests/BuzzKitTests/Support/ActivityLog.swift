import Foundation
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Collects a client's activity for assertions.
final class ActivityLog: Sendable {
    private let entries = Locked<[ClientActivity]>([])

    /// Appends one activity (the observer).
    func record(_ activity: ClientActivity) {
        entries.withLock { $0.append(activity) }
    }

    /// Everything recorded, in order.
    var all: [ClientActivity] { entries.current }

    /// The reasons of every rejected plan.
    var rejections: [ClientActivity.RejectionReason] {
        all.compactMap { if case .planRejected(_, _, let reason) = $0 { return reason } else { return nil } }
    }

    /// The local ids of every scheduled plan.
    var scheduled: [String] {
        all.compactMap { if case .planScheduled(let id, _, _) = $0 { return id } else { return nil } }
    }

    /// Every flush failure's retry time.
    var retryTimes: [Date] {
        all.compactMap { if case .flushFailed(_, let at) = $0 { return at } else { return nil } }
    }

    /// Forgets everything recorded.
    func clear() {
        entries.withLock { $0.removeAll() }
    }
}
