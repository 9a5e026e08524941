#if canImport(UIKit) && canImport(UserNotifications)
import BuzzKitWire
import Foundation
import UIKit
@preconcurrency import UserNotifications

/// The app's push events on iOS, used by automatic push handling: installs a
/// ``NotificationResponseForwarder`` as the notification center's delegate and registers for
/// remote notifications.
///
/// Swift cannot intercept `UIApplicationDelegate` calls without swizzling, which this SDK
/// does not do: inherit from ``BuzzKitAppDelegate`` (or call ``receive(userInfo:)`` and
/// ``receive(deviceToken:)`` from your own delegate) so silent pushes and the token reach it.
public final class ApplicationPushEventSource: PushEventSource, @unchecked Sendable {
    /// The app's single source.
    public static let shared = ApplicationPushEventSource()

    private let forwarder = NotificationResponseForwarder()
    private let target = Locked<WeakHandler>(WeakHandler())

    private struct WeakHandler {
        weak var handler: (any PushEventHandling)?
    }

    /// Routes the app's push events to `handler` and registers for remote notifications.
    public func attach(_ handler: any PushEventHandling) async {
        target.withLock { $0.handler = handler }
        forwarder.setHandler(handler)
        let forwarder = self.forwarder
        await MainActor.run {
            UNUserNotificationCenter.current().delegate = forwarder
            UIApplication.shared.registerForRemoteNotifications()
        }
    }

    /// Stops routing.
    public func detach() async {
        target.withLock { $0.handler = nil }
        forwarder.setHandler(nil)
    }

    /// A remote notification from `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    nonisolated(nonsending) public func receive(userInfo: [AnyHashable: Any]) async -> UIBackgroundFetchResult {
        guard let handler = target.current.handler,
              let payload = try? JSONValue.members(userInfo: userInfo)
        else { return .noData }
        switch await handler.handleRemoteNotification(payload: payload) {
        case .newData: return .newData
        case .noData: return .noData
        case .failed: return .failed
        }
    }

    /// The token from `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    public func receive(deviceToken: Data) async {
        await target.current.handler?.handleDeviceToken(deviceToken.map { String(format: "%02x", $0) }.joined())
    }
}
#endif
