#if canImport(UserNotifications)
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
public final class NotificationResponseForwarder: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
    private let relay: PushEventRelay
    /// The app's delegate from before BuzzKit was configured (held weakly, as iOS holds
    /// delegates).
    public weak var next: (any UNUserNotificationCenterDelegate)?

    /// A forwarder whose BuzzKit events go through `relay`.
    public init(relay: PushEventRelay) {
        self.relay = relay
    }

    /// A tap (or another action): BuzzKit's default action goes to the SDK, the rest to the
    /// app's delegate. iOS calls this on launch by a tap too, after
    /// `application(_:didFinishLaunchingWithOptions:)`, and waits for it to return.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        let userInfo = (try? JSONValue.members(userInfo: response.notification.request.content.userInfo)) ?? [:]
        guard BuzzKitNotification.owns(userInfo: userInfo) else {
            guard let next, next.responds(to: #selector(UNUserNotificationCenterDelegate.userNotificationCenter(_:didReceive:withCompletionHandler:)))
            else { return }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                next.userNotificationCenter?(center, didReceive: response) { done.resume() }
            }
            return
        }
        if response.actionIdentifier == UNNotificationDefaultActionIdentifier {
            await relay.open(userInfo: userInfo)
        }
    }

    /// A notification about to be shown while the app is in the foreground.
    public func userNotificationCenter(_ center: UNUserNotificationCenter,
                                       willPresent notification: UNNotification) async -> UNNotificationPresentationOptions {
        let userInfo = (try? JSONValue.members(userInfo: notification.request.content.userInfo)) ?? [:]
        guard let presentation = BuzzKitNotification.foregroundPresentation(userInfo: userInfo) else {
            guard let next, next.responds(to: #selector(UNUserNotificationCenterDelegate.userNotificationCenter(_:willPresent:withCompletionHandler:)))
            else { return [] }
            return await withCheckedContinuation { (done: CheckedContinuation<UNNotificationPresentationOptions, Never>) in
                next.userNotificationCenter?(center, willPresent: notification) { done.resume(returning: $0) }
            }
        }
        if notification.request.trigger is UNPushNotificationTrigger {
            _ = await relay.deliverRemoteNotification(payload: userInfo)
        }
        var options: UNNotificationPresentationOptions = []
        if presentation.banner { options.insert(.banner) }
        if presentation.list { options.insert(.list) }
        if presentation.sound { options.insert(.sound) }
        return options
    }

    /// The app's settings screen for notifications: the app's delegate decides.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
        next?.userNotificationCenter?(center, openSettingsFor: notification)
    }
}
#endif
