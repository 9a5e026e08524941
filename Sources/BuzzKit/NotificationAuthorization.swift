/// The person's notification permission, as the SDK reports it to the server
/// (`PUT /v1/subscribers/{id}/devices` `authorization`, docs/contract.md §4b).
public enum NotificationAuthorization: String, Sendable, Hashable, Codable, CaseIterable {
    /// Alerts are shown.
    case authorized
    /// Alerts are delivered quietly to the notification list (iOS 12+ provisional).
    case provisional
    /// The person said no: nothing BuzzKit schedules or sends is shown on this phone.
    case denied
    /// The app has not asked yet.
    case notDetermined

    /// Whether a notification scheduled now would be shown (quietly for provisional).
    public var canShow: Bool { self == .authorized || self == .provisional }
}
