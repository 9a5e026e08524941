extension NotificationScheduling {
    /// The permission, for centers that have no notion of one: always authorized.
    public func authorizationStatus() async -> NotificationAuthorization { .authorized }

    /// Asking, for centers that have no notion of permission: granted.
    public func requestAuthorization() async throws -> NotificationAuthorization { .authorized }
}
