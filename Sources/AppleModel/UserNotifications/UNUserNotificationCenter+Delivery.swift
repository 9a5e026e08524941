import AppleModelCore
import Foundation

/// What the model did with a notification it delivered.
public struct ModelPresentation: Sendable {
    /// The notification.
    public let notification: UNNotification
    /// Whether the person saw it (a banner or the list); in the foreground only when the
    /// delegate asked for it.
    public let shown: Bool
    /// Whether the app was in the foreground.
    public let inForeground: Bool
    /// When it was presented, on the phone's clock.
    public let presentedAt: Date
}

extension UNUserNotificationCenter {
    /// Fires every pending request whose trigger date has come, by the trigger's own rule in
    /// the phone's zone now, and presents each (oldest first). A request whose wall clock the
    /// zone change skipped has no next date any more and is dropped, as a one-shot calendar
    /// trigger in the past is.
    public func modelDeliverDue() async -> [ModelPresentation] {
        let now = modelDevice.now
        let due = lockedDue(now: now)
        var presented: [ModelPresentation] = []
        for (request, date) in due {
            presented.append(await present(UNNotification(request: request, date: date)))
        }
        return presented
    }

    /// The earliest trigger date among the pending requests, in the phone's zone now.
    public func modelNextTriggerDate() async -> Date? {
        let requests = await pendingNotificationRequests()
        let start = modelDevice.now.addingTimeInterval(-1)
        return requests.compactMap { Self.nextDate(of: $0, after: ($0.evaluatedSince ?? start).addingTimeInterval(-0.001)) }.min()
    }

    /// A remote notification with an alert arrives from APNs (`userInfo` is its JSON) at
    /// `date` (now when `nil`; iOS shows an alert as it arrives, so a driver handing it over
    /// late passes the arrival). `identifier` is the request's (`apns-collapse-id`, when set).
    @discardableResult
    public func modelDeliverRemote(identifier: String, title: String, body: String, userInfo: sending [AnyHashable: Any],
                                   date: Date? = nil) async -> ModelPresentation {
        let content = UNMutableNotificationContent()
        content.title = title
        content.body = body
        // iOS reads the presentation from `aps` (Apple, "Generating a remote notification":
        // `sound`, `interruption-level`, `thread-id`, `badge`, `category`).
        if let aps = userInfo["aps"] as? [AnyHashable: Any] {
            APSDictionary.check(aps, on: modelDevice)
            if let sound = aps["sound"] as? String { content.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound)) }
            switch aps["interruption-level"] as? String {
            case "passive": content.interruptionLevel = .passive
            case "time-sensitive": content.interruptionLevel = .timeSensitive
            case "critical": content.interruptionLevel = .critical
            default: content.interruptionLevel = .active
            }
            if let thread = aps["thread-id"] as? String { content.threadIdentifier = thread }
            if let badge = aps["badge"] as? Int { content.badge = NSNumber(value: badge) }
            if let category = aps["category"] as? String { content.categoryIdentifier = category }
        }
        content.userInfo = userInfo
        let request = UNNotificationRequest(identifier: identifier, content: content, trigger: UNPushNotificationTrigger())
        return await present(UNNotification(request: request, date: date ?? modelDevice.now))
    }

    /// The person taps a notification in Notification Center (or on the lock screen), or
    /// answers one of its actions. Call it once the app has launched. Returns whether the
    /// delegate answered before iOS stopped waiting (30 s); false too when the notification
    /// shows no such button (its category is not registered, or lacks the action: iOS shows
    /// only a registered category's actions). iOS removes the notification from the list when
    /// the person taps it or chooses one of its buttons.
    @discardableResult
    public func modelRespond(toNotificationWithIdentifier identifier: String,
                             actionIdentifier: String = UNNotificationDefaultActionIdentifier) async -> Bool {
        guard let notification = await deliveredNotifications().last(where: { $0.request.identifier == identifier }) else { return false }
        if actionIdentifier != UNNotificationDefaultActionIdentifier {
            let buttons = modelActions(forCategory: notification.request.content.categoryIdentifier)
            guard buttons.contains(where: { $0.identifier == actionIdentifier }) else { return false }
        }
        removeDeliveredNotifications(withIdentifiers: [identifier])
        let response = UNNotificationResponse(notification: notification, actionIdentifier: actionIdentifier)
        let check = CompletionCheck<Bool>("userNotificationCenter(_:didReceive:withCompletionHandler:)", on: modelDevice)
        let handler = check.handler()
        await MainThread.run { [self] in
            guard let delegate = self.delegate else { return handler(true) }
            delegate.userNotificationCenter(self, didReceive: response) { handler(true) }
        }
        return await check.answer(within: 30) != nil
    }

    @discardableResult
    func present(_ notification: UNNotification) async -> ModelPresentation {
        let foreground = modelDevice.appInForeground
        var shown = true
        if foreground {
            let check = CompletionCheck<UNNotificationPresentationOptions>(
                "userNotificationCenter(_:willPresent:withCompletionHandler:)", on: modelDevice)
            let handler = check.handler()
            await MainThread.run { [self] in
                guard let delegate = self.delegate else { return handler([]) }
                delegate.userNotificationCenter(self, willPresent: notification, withCompletionHandler: handler)
            }
            let options = await check.answer(within: 30) ?? []
            shown = !options.isDisjoint(with: [.banner, .list])
        }
        // Without permission iOS delivers nothing the person sees (Apple, "Asking permission to
        // use notifications": the system delivers notifications only if authorized).
        let settings = await notificationSettings()
        if settings.authorizationStatus != .authorized && settings.authorizationStatus != .provisional { shown = false }
        if shown { appendDelivered(notification) }
        let presentation = ModelPresentation(notification: notification, shown: shown, inForeground: foreground,
                                             presentedAt: modelDevice.now)
        modelOnPresent?(presentation)
        return presentation
    }
}

extension UNNotificationRequest {
    var evaluatedSince: Date? { (trigger as? UNCalendarNotificationTrigger)?.evaluationStart }
}
