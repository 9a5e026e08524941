#if canImport(UserNotifications) && !NO_APPLE_FRAMEWORKS
import BuzzKitWire
import Foundation
@preconcurrency import UserNotifications

/// ``NotificationScheduling`` over `UNUserNotificationCenter`: a plan becomes a
/// `UNCalendarNotificationTrigger` whose date components are Gregorian with no time zone
/// (``FireAt/floatingDateComponents``), so iOS fires it at that wall clock in whatever zone
/// the device is in.
///
/// Every method is one call of Apple's API, documented with what iOS does; the decisions
/// (what to schedule, keep, remove, acknowledge) are made in ``BuzzKitClient`` and tested on
/// Linux over ``InMemoryNotificationCenter``, which models the same behaviour.
///
/// The app's own pending requests are reported too (they count towards the 64): calendar
/// triggers by their components, other triggers by their next fire date in the current zone.
public struct UserNotificationCenterScheduler: NotificationScheduling, @unchecked Sendable {
    /// The center. The iOS 16 SDK does not mark it `Sendable`; the scheduler only calls its
    /// thread-safe request methods, as apps do from any queue.
    private let center: UNUserNotificationCenter

    /// The scheduler over `center`, the app's `UNUserNotificationCenter.current()` by default.
    public init(center: UNUserNotificationCenter = .current()) {
        self.center = center
    }

    /// Adds the request with a one-shot floating calendar trigger.
    nonisolated(nonsending) public func add(_ request: NotificationRequest) async throws {
        let content = UNMutableNotificationContent()
        content.title = request.title
        content.body = request.body
        Self.apply(request.presentation, to: content)
        content.userInfo = JSONValue.foundationObject(request.userInfo)
        // iOS: a pending request with the same identifier is replaced; past the app's 64
        // pending requests, the ones firing last are dropped silently.
        let trigger = UNCalendarNotificationTrigger(dateMatching: request.fireAt.floatingDateComponents, repeats: false)
        try await center
            .add(UNNotificationRequest(identifier: request.id, content: content, trigger: trigger))
    }

    /// Removes pending requests by id.
    nonisolated(nonsending) public func removePendingRequests(withIdentifiers ids: [String]) async {
        center.removePendingNotificationRequests(withIdentifiers: ids)
    }

    /// Every pending request, the app's own included.
    nonisolated(nonsending) public func pendingRequests() async -> [NotificationRequest] {
        await center.pendingNotificationRequests().map(Self.request(from:))
    }

    /// The notifications in the notification list.
    nonisolated(nonsending) public func deliveredNotifications() async -> [DeliveredNotification] {
        await center.deliveredNotifications().map { notification in
            let isRemote = notification.request.trigger is UNPushNotificationTrigger
            return DeliveredNotification(
                id: notification.request.identifier, origin: isRemote ? .remote : .local,
                title: notification.request.content.title, body: notification.request.content.body,
                userInfo: (try? JSONValue.members(userInfo: notification.request.content.userInfo)) ?? [:],
                scheduledFor: nil, deliveredAt: notification.date, timeZoneIdentifier: TimeZone.current.identifier)
        }
    }

    /// Removes shown notifications by id.
    nonisolated(nonsending) public func removeDeliveredNotifications(withIdentifiers ids: [String]) async {
        center.removeDeliveredNotifications(withIdentifiers: ids)
    }

    /// The permission: `getNotificationSettings().authorizationStatus` (iOS re-reads Settings
    /// each time; `ephemeral` App Clip permission counts as provisional).
    nonisolated(nonsending) public func authorizationStatus() async -> NotificationAuthorization {
        switch await center.notificationSettings().authorizationStatus {
        case .authorized: return .authorized
        case .provisional: return .provisional
        #if os(iOS)
        case .ephemeral: return .provisional  // App Clips only; macOS has no such case
        #endif
        case .denied: return .denied
        case .notDetermined: return .notDetermined
        @unknown default: return .notDetermined
        }
    }

    /// `requestAuthorization(options: [.alert, .sound, .badge])`: iOS asks the person once;
    /// later calls return the answer without asking.
    nonisolated(nonsending) public func requestAuthorization() async throws -> NotificationAuthorization {
        _ = try await center.requestAuthorization(options: [.alert, .sound, .badge])
        return await authorizationStatus()
    }

    /// Sets the presentation on the content: sound (`UNNotificationSound.default` or a bundled
    /// file), interruption level (iOS 15), thread, badge and category.
    static func apply(_ presentation: NotificationPresentation, to content: UNMutableNotificationContent) {
        switch presentation.sound {
        case nil: content.sound = nil
        case NotificationPresentation.defaultSound?: content.sound = .default
        case let name?: content.sound = UNNotificationSound(named: UNNotificationSoundName(rawValue: name))
        }
        switch presentation.interruptionLevel {
        case .passive: content.interruptionLevel = .passive
        case .active: content.interruptionLevel = .active
        case .timeSensitive: content.interruptionLevel = .timeSensitive
        }
        if let threadId = presentation.threadId { content.threadIdentifier = threadId }
        if let badge = presentation.badge { content.badge = NSNumber(value: badge) }
        if let category = presentation.category { content.categoryIdentifier = category }
    }

    /// The presentation the content shows (the sound file's name is not readable back: a
    /// custom sound reads as the default one).
    static func presentation(of content: UNNotificationContent) -> NotificationPresentation {
        var presentation = NotificationPresentation(sound: content.sound == nil ? nil : NotificationPresentation.defaultSound)
        switch content.interruptionLevel {
        case .passive: presentation.interruptionLevel = .passive
        case .timeSensitive, .critical: presentation.interruptionLevel = .timeSensitive
        default: presentation.interruptionLevel = .active
        }
        presentation.threadId = content.threadIdentifier.isEmpty ? nil : content.threadIdentifier
        presentation.badge = content.badge?.intValue
        presentation.category = content.categoryIdentifier.isEmpty ? nil : content.categoryIdentifier
        return presentation
    }

    /// Registers `categories` beside the ones the app registered: iOS keeps one set, which
    /// `setNotificationCategories(_:)` replaces whole ("Calling this method replaces the existing
    /// categories"), so the set is read, BuzzKit's are put in (a category with the same id
    /// replaced), and the app's own are kept.
    nonisolated(nonsending) public func registerCategories(_ categories: [NotificationCategory]) async {
        guard !categories.isEmpty else { return }
        let ids = Set(categories.map(\.id))
        let existing = await center.notificationCategories().filter { !ids.contains($0.identifier) }
        let added = categories.map { category in
            UNNotificationCategory(identifier: category.id, actions: category.actions.map { action in
                var options: UNNotificationActionOptions = []
                if action.foreground { options.insert(.foreground) }
                if action.destructive { options.insert(.destructive) }
                return UNNotificationAction(identifier: action.id, title: action.title, options: options)
            }, intentIdentifiers: [], options: [])
        }
        center.setNotificationCategories(existing.union(added))
    }

    /// The category identifiers registered now (the app's and BuzzKit's).
    nonisolated(nonsending) public func registeredCategoryIds() async -> Set<String> {
        Set(await center.notificationCategories().map(\.identifier))
    }

    static func request(from request: UNNotificationRequest) -> NotificationRequest {
        let content = request.content
        let fireAt: FireAt
        if let calendar = request.trigger as? UNCalendarNotificationTrigger,
           let floating = FireAt(floating: calendar.dateComponents) {
            fireAt = floating
        } else if let next = (request.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate()
                    ?? (request.trigger as? UNTimeIntervalNotificationTrigger)?.nextTriggerDate() {
            fireAt = FireAt(instant: next, in: .current)
        } else {
            fireAt = FireAt(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)
        }
        return NotificationRequest(id: request.identifier, title: content.title, body: content.body,
                                   presentation: presentation(of: content),
                                   userInfo: (try? JSONValue.members(userInfo: content.userInfo)) ?? [:],
                                   fireAt: fireAt)
    }
}
#endif
