extension NotificationScheduling {
    /// The permission, for centers that have no notion of one: always authorized.
    nonisolated(nonsending) public func authorizationStatus() async -> NotificationAuthorization { .authorized }

    /// Asking, for centers that have no notion of permission: granted.
    nonisolated(nonsending) public func requestAuthorization() async throws -> NotificationAuthorization { .authorized }
}
