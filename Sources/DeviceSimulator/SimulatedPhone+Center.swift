import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import UserNotifications

/// The phone's notification center (iOS's side): it fires local notifications by the model's
/// own calendar rule, shows alerts, and every notification the person sees is recorded.
extension SimulatedPhone {
    /// Starts `center` firing: a task sleeps until its next trigger date and delivers what is
    /// due; a request added or removed, or a zone change (``travel(to:)``), wakes it to look
    /// again. What is shown is recorded.
    func attach(_ center: UNUserNotificationCenter) {
        center.modelOnPresent = { [weak self] presentation in
            guard presentation.shown, let self else { return }
            self.note("shown " + presentation.notification.request.identifier)
            self.record(Self.delivered(presentation, zone: self.systemClock.timeZone))
        }
        let wakeup = Wakeup()
        center.modelOnChange = { wakeup.poke() }
        let clock = systemClock
        let loop = Task {
            while !Task.isCancelled {
                _ = await center.modelDeliverDue()
                // A minute at the most, whatever is pending: a safety net, not the rule.
                let limit = clock.now.addingTimeInterval(60)
                let next = await center.modelNextTriggerDate().map { min($0, limit) } ?? limit
                await wakeup.wait(until: next) { try await clock.sleep(until: $0) }
            }
        }
        locked {
            firing?.cancel()
            firing = loop
            centerWakeup = wakeup
        }
    }

    /// Stops the center firing.
    func detachCenter() {
        locked {
            firing?.cancel()
            firing = nil
            centerWakeup = nil
        }
    }

    /// A notification the model presented, as the fleet judges it.
    static func delivered(_ presentation: ModelPresentation, zone: TimeZone) -> DeliveredNotification {
        let request = presentation.notification.request
        let remote = request.trigger is UNPushNotificationTrigger
        return DeliveredNotification(
            id: request.identifier, origin: remote ? .remote : .local, title: request.content.title, body: request.content.body,
            userInfo: (try? JSONValue.members(userInfo: request.content.userInfo)) ?? [:],
            scheduledFor: remote ? nil : presentation.notification.date,
            deliveredAt: remote ? presentation.notification.date : presentation.presentedAt, timeZoneIdentifier: zone.identifier)
    }

    /// A request of the app's own (no BuzzKit user info) for the wall clock `fireAt`, as the app
    /// adds it: a floating calendar trigger.
    func addOwnRequest(id: String, title: String, body: String, fireAt: FireAt) async {
        let content = UNMutableNotificationContent()
        content.title = title
        content.body = body
        let trigger = UNCalendarNotificationTrigger(dateMatching: fireAt.floatingDateComponents, repeats: false)
        try? await center.add(UNNotificationRequest(identifier: id, content: content, trigger: trigger))
    }
}

extension NotificationAuthorization {
    /// The same permission as the model's `UNAuthorizationStatus`.
    var modelStatus: UNAuthorizationStatus {
        switch self {
        case .authorized: return .authorized
        case .provisional: return .provisional
        case .denied: return .denied
        case .notDetermined: return .notDetermined
        }
    }
}
