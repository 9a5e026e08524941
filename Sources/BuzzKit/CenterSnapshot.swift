import Foundation

/// What a sync reads from the notification center once for all the plans it schedules: the
/// permission and the pending requests, kept up to date with what the sync adds and removes.
///
/// Each read is a round trip to iOS's notification daemon (`getNotificationSettings`,
/// `getPendingNotificationRequests`), and each is a suspension point at which the SDK's other
/// work queues behind the sync. Read per plan, a crowded phone's sync of 70 plans made about
/// 280 of them; the fleet all at once, where thousands of phones share two cores, had wakes
/// waiting on such syncs past iOS's 30 s.
///
/// What the app adds meanwhile is not in it: the notification center still drops the
/// latest-firing requests past its limit, and the next reconciliation finds a BuzzKit plan
/// dropped that way (`$local.released`), as it does for requests the app adds at any time.
struct CenterSnapshot: Sendable {
    /// The permission as the sync began.
    var authorization: NotificationAuthorization
    /// The pending requests, the app's and BuzzKit's.
    private(set) var pending: [NotificationRequest]

    init(authorization: NotificationAuthorization, pending: [NotificationRequest]) {
        self.authorization = authorization
        self.pending = pending
    }

    /// The request was added (replacing one with its id, as the center does).
    mutating func added(_ request: NotificationRequest) {
        removed([request.id])
        pending.append(request)
    }

    /// The requests with these ids were removed.
    mutating func removed(_ ids: [String]) {
        let gone = Set(ids)
        pending.removeAll { gone.contains($0.id) }
    }
}
