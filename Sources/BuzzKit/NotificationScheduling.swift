import BuzzKitWire

/// The device's notification center, the seam between the SDK and the platform
/// (`UNUserNotificationCenter` on Apple platforms, ``InMemoryNotificationCenter`` on Linux).
///
/// Semantics follow iOS: adding a request whose id is pending replaces it; the center keeps
/// at most a fixed number of pending requests (64 on iOS) and silently discards the
/// latest-firing ones beyond that.
///
/// The calls run on the caller's executor (`nonisolated(nonsending)`): the SDK's state
/// changes make one call per plan, and a hop off the client's actor and back waits for a
/// thread twice (in the simulator's all-at-once burst up to a second or more each).
public protocol NotificationScheduling: Sendable {
    /// Adds (or replaces) a pending request.
    nonisolated(nonsending) func add(_ request: NotificationRequest) async throws
    /// Removes the pending requests with these ids; unknown ids are ignored.
    nonisolated(nonsending) func removePendingRequests(withIdentifiers ids: [String]) async
    /// Every pending request.
    nonisolated(nonsending) func pendingRequests() async -> [NotificationRequest]
    /// The notifications shown and still in the notification list.
    nonisolated(nonsending) func deliveredNotifications() async -> [DeliveredNotification]
    /// Removes shown notifications from the list; unknown ids are ignored.
    nonisolated(nonsending) func removeDeliveredNotifications(withIdentifiers ids: [String]) async
    /// The person's current notification permission.
    nonisolated(nonsending) func authorizationStatus() async -> NotificationAuthorization
    /// Asks the person for permission (alert, sound, badge) when not asked yet, and returns
    /// the permission afterwards.
    nonisolated(nonsending) func requestAuthorization() async throws -> NotificationAuthorization
    /// Registers BuzzKit's categories (buttons) beside the app's own, never replacing those;
    /// a category with the same id is replaced.
    nonisolated(nonsending) func registerCategories(_ categories: [NotificationCategory]) async
    /// The ids of every registered category (the app's and BuzzKit's).
    nonisolated(nonsending) func registeredCategoryIds() async -> Set<String>
}
