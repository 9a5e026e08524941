#if canImport(UserNotifications) && !NO_APPLE_FRAMEWORKS
import BuzzKitWire
import Foundation
@preconcurrency import UserNotifications

/// The `UNUserNotificationCenter` delegate installed by automatic push handling. It handles
/// BuzzKit's notifications and passes everything else to the delegate the app had installed
/// before (``next``), so the app's own notifications behave as if BuzzKit were not there.
///
/// - Taps on BuzzKit notifications go to the SDK (`$push.opened`, deep link); other taps go
///   to the app's delegate.
/// - In the foreground, BuzzKit's notifications are shown (banner, list, sound) and a BuzzKit
///   alert push is first handed to the SDK (a fallback removes its pending local copy); the
///   app's own go to its delegate, or are not shown when it has none (iOS's default).
///
/// Isolation: iOS calls a notification center delegate on the main thread and expects each
/// completion handler to be called once ("You must call the completionHandler ... after you
/// finish processing the user's response", UNUserNotificationCenterDelegate). The async forms of
/// these methods, implemented by a class that is not main-actor isolated, run their body and the
/// completion iOS bridges them to off the main thread, and apps crash on a tap that way. So this
/// class is main-actor isolated, implements the completion-handler forms, does its work in a
/// main-actor task and calls each completion handler exactly once, on the main thread.
@MainActor
public final class NotificationResponseForwarder: NSObject, @preconcurrency UNUserNotificationCenterDelegate {
    private let relay: PushEventRelay
    /// The app's delegate from before BuzzKit was configured (held weakly, as iOS holds
    /// delegates).
    public weak var next: (any UNUserNotificationCenterDelegate)?

    /// A forwarder whose BuzzKit events go through `relay`.
    public init(relay: PushEventRelay) {
        self.relay = relay
    }

    /// A tap or a button: on BuzzKit's notifications a tap goes to the SDK as an open and a
    /// button as an action (``BuzzKitClient/handleNotificationAction(_:on:receivedAt:)``); the
    /// app's own go to the app's delegate (which then owns the completion handler). iOS calls
    /// this on launch by a tap or a foreground button too, after
    /// `application(_:didFinishLaunchingWithOptions:)`.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                       withCompletionHandler completionHandler: @escaping @Sendable () -> Void) {
        let userInfo = (try? JSONValue.members(userInfo: response.notification.request.content.userInfo)) ?? [:]
        guard BuzzKitNotification.owns(userInfo: userInfo) else {
            if let next, next.forwardDidReceive(center, response, completionHandler) { return }
            completionHandler()
            return
        }
        let relay = self.relay
        switch response.actionIdentifier {
        case UNNotificationDefaultActionIdentifier:
            Task { @MainActor in
                await relay.open(userInfo: userInfo)
                completionHandler()
            }
        case UNNotificationDismissActionIdentifier:
            completionHandler()
        default:
            // A button: the SDK tracks it (and its event, or a snooze) before the completion
            // handler, after which iOS may suspend an app the button ran in the background.
            let request = UserNotificationCenterScheduler.request(from: response.notification.request)
            let actionId = response.actionIdentifier
            let receivedAt = Date()
            Task { @MainActor in
                await relay.action(actionId, on: request, receivedAt: receivedAt)
                completionHandler()
            }
        }
    }

    /// A notification about to be shown while the app is in the foreground.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                       withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void) {
        let userInfo = (try? JSONValue.members(userInfo: notification.request.content.userInfo)) ?? [:]
        guard let presentation = BuzzKitNotification.foregroundPresentation(userInfo: userInfo) else {
            if let next, next.forwardWillPresent(center, notification, completionHandler) { return }
            completionHandler([])
            return
        }
        var options: UNNotificationPresentationOptions = []
        if presentation.banner { options.insert(.banner) }
        if presentation.list { options.insert(.list) }
        if presentation.sound { options.insert(.sound) }
        guard notification.request.trigger is UNPushNotificationTrigger else {
            completionHandler(options)
            return
        }
        // A fallback arriving in the foreground: the SDK first removes its pending local copy,
        // but iOS is not kept waiting for it longer than ``presentationWait``: the SDK may be
        // busy (a crowded phone's sync), and a person who leaves the app meanwhile would never
        // see the alert (the 10,000-phone fleet lost a fallback that way). The removal goes on.
        let relay = self.relay
        let answered = Locked(false)
        let answer: @Sendable @MainActor () -> Void = {
            if answered.withLock({ done in defer { done = true }; return !done }) { completionHandler(options) }
        }
        Task { @MainActor in
            _ = await relay.deliverRemoteNotification(payload: userInfo)
            answer()
        }
        Task { @MainActor in
            try? await Task.sleep(nanoseconds: UInt64(Self.presentationWait * 1_000_000_000))
            answer()
        }
    }

    /// How long iOS waits at most for BuzzKit's answer to a BuzzKit alert arriving in the
    /// foreground, in seconds.
    nonisolated public static let presentationWait: TimeInterval = 0.5

    /// The app's settings screen for notifications: the app's delegate decides.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
        next?.forwardOpenSettings(center, notification)
    }
}
#endif
