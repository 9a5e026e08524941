import Foundation

/// Model of `UNNotificationRequest`: an identifier, content and trigger.
open class UNNotificationRequest: NSObject, @unchecked Sendable {
    /// The identifier; adding another request with it replaces this one.
    public let identifier: String
    /// A copy of the content at the time the request was made.
    public let content: UNNotificationContent
    /// The trigger; `nil` delivers right away.
    public let trigger: UNNotificationTrigger?

    /// A request (the content is copied, as iOS does).
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = UNNotificationContent(copying: content)
        self.trigger = trigger
        super.init()
    }
}

/// Model of `UNNotification`: a request the system delivered, with when.
open class UNNotification: NSObject, @unchecked Sendable {
    /// The request.
    public let request: UNNotificationRequest
    /// When it was delivered.
    public let date: Date

    init(request: UNNotificationRequest, date: Date) {
        self.request = request
        self.date = date
        super.init()
    }
}

/// Model of `UNNotificationResponse`: the person acted on a notification.
open class UNNotificationResponse: NSObject, @unchecked Sendable {
    /// The notification.
    public let notification: UNNotification
    /// ``UNNotificationDefaultActionIdentifier`` for a tap, ``UNNotificationDismissActionIdentifier``
    /// for a dismissal (categories asking for it), or the action's identifier.
    public let actionIdentifier: String

    init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
        super.init()
    }
}

/// The action identifier of a tap that opens the app.
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
/// The action identifier of a dismissal.
public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
