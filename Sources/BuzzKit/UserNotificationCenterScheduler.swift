#if canImport(UserNotifications)
import BuzzKitWire
import Foundation
@preconcurrency import UserNotifications

/// ``NotificationScheduling`` over `UNUserNotificationCenter`: a plan becomes a
/// `UNCalendarNotificationTrigger` whose date components have no time zone, so iOS fires it at
/// that wall clock in whatever zone the device is in.
///
/// The app's own pending requests are reported too (they count towards the 64): calendar
/// triggers by their components, other triggers by their next fire date in the current zone.
public struct UserNotificationCenterScheduler: NotificationScheduling {
    /// The scheduler over `UNUserNotificationCenter.current()`.
    public init() {}

    /// Adds the request with a one-shot floating calendar trigger.
    public func add(_ request: NotificationRequest) async throws {
        let content = UNMutableNotificationContent()
        content.title = request.title
        content.body = request.body
        if request.sound != nil { content.sound = .default }
        content.userInfo = JSONValue.foundationObject(request.userInfo)
        var components = DateComponents()
        components.year = request.fireAt.year
        components.month = request.fireAt.month
        components.day = request.fireAt.day
        components.hour = request.fireAt.hour
        components.minute = request.fireAt.minute
        components.second = request.fireAt.second
        let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: false)
        try await UNUserNotificationCenter.current()
            .add(UNNotificationRequest(identifier: request.id, content: content, trigger: trigger))
    }

    /// Removes pending requests by id.
    public func removePendingRequests(withIdentifiers ids: [String]) async {
        UNUserNotificationCenter.current().removePendingNotificationRequests(withIdentifiers: ids)
    }

    /// Every pending request, the app's own included.
    public func pendingRequests() async -> [NotificationRequest] {
        await UNUserNotificationCenter.current().pendingNotificationRequests().map(Self.request(from:))
    }

    /// The notifications in the notification list.
    public func deliveredNotifications() async -> [DeliveredNotification] {
        await UNUserNotificationCenter.current().deliveredNotifications().map { notification in
            let isRemote = notification.request.trigger is UNPushNotificationTrigger
            return DeliveredNotification(
                id: notification.request.identifier, origin: isRemote ? .remote : .local,
                title: notification.request.content.title, body: notification.request.content.body,
                userInfo: (try? JSONValue.members(userInfo: notification.request.content.userInfo)) ?? [:],
                scheduledFor: nil, deliveredAt: notification.date, timeZoneIdentifier: TimeZone.current.identifier)
        }
    }

    /// Removes shown notifications by id.
    public func removeDeliveredNotifications(withIdentifiers ids: [String]) async {
        UNUserNotificationCenter.current().removeDeliveredNotifications(withIdentifiers: ids)
    }

    static func request(from request: UNNotificationRequest) -> NotificationRequest {
        let content = request.content
        let fireAt: FireAt
        if let calendar = request.trigger as? UNCalendarNotificationTrigger,
           let year = calendar.dateComponents.year, let month = calendar.dateComponents.month,
           let day = calendar.dateComponents.day {
            let parts = calendar.dateComponents
            fireAt = FireAt(year: year, month: month, day: day, hour: parts.hour ?? 0,
                            minute: parts.minute ?? 0, second: parts.second ?? 0)
        } else if let next = (request.trigger as? UNCalendarNotificationTrigger)?.nextTriggerDate()
                    ?? (request.trigger as? UNTimeIntervalNotificationTrigger)?.nextTriggerDate() {
            fireAt = FireAt(instant: next, in: .current)
        } else {
            fireAt = FireAt(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)
        }
        return NotificationRequest(id: request.identifier, title: content.title, body: content.body,
                                   sound: content.sound == nil ? nil : "default",
                                   userInfo: (try? JSONValue.members(userInfo: content.userInfo)) ?? [:],
                                   fireAt: fireAt)
    }
}
#endif
