#if canImport(UIKit) && canImport(UserNotifications) && !NO_APPLE_FRAMEWORKS
import BuzzKitWire
import Foundation
import UIKit

/// Hands the app delegate's push callbacks to BuzzKit with no code in the app, as Firebase
/// Messaging and OneSignal do: at ``BuzzKit/configure(_:)`` the class of
/// `UIApplication.shared.delegate` (the app's own, or SwiftUI's when the app has no
/// `@UIApplicationDelegateAdaptor`) gets BuzzKit's implementation of
///
/// - `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`: the token goes to
///   BuzzKit, then to the app's implementation if it has one;
/// - `application(_:didFailToRegisterForRemoteNotificationsWithError:)`: the app's, if any;
/// - `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: a BuzzKit push is
///   BuzzKit's and its completion handler is called once, with BuzzKit's result; any other
///   push goes to the app's implementation (or is answered `.noData` when it has none).
///
/// Each class is hooked once per process, whatever the number of `configure` calls, so the
/// chain never loops. A delegate that is a ``BuzzKitAppDelegate`` forwards already and is left
/// alone. UIKit asks the delegate what it implements when the delegate is set, so after adding
/// methods the hook sets the same delegate again (Apple, `UIApplication.delegate`: "UIKit
/// checks which methods the delegate implements when you assign it").
///
/// What the hook does is here; how it gives a class a method is per platform: the Objective-C
/// runtime on Apple's (`AppDelegateHook+ObjectiveC.swift`), the Apple model's stand-in for it
/// on Linux (`AppDelegateHook+Model.swift`).
@available(iOSApplicationExtension, unavailable)
@MainActor
enum AppDelegateHook {
    private static var hooked: Set<ObjectIdentifier> = []
    private static var launchObservers: [ObjectIdentifier: NSObjectProtocol] = [:]

    /// Hooks the class of `environment`'s app delegate (once).
    static func install(in environment: ApplicationEnvironment) {
        let application = environment.pushEvents.application()
        guard let delegate = application.delegate else {
            // Configured before UIKit set the delegate (a SwiftUI `App`'s initializer): hook it
            // as launching finishes, before the token or a push can come.
            waitForLaunch(of: application, in: environment)
            return
        }
        guard !(delegate is BuzzKitAppDelegate) else { return }
        let cls: AnyClass = hookedClass(of: delegate)
        guard hooked.insert(ObjectIdentifier(cls)).inserted else { return }
        hookToken(cls)
        hookFailure(cls)
        hookFetch(cls)
        application.delegate = nil
        application.delegate = delegate
    }

    private static func waitForLaunch(of application: UIApplication, in environment: ApplicationEnvironment) {
        let key = ObjectIdentifier(application)
        guard launchObservers[key] == nil else { return }
        launchObservers[key] = environment.notifications.addObserver(forName: UIApplication.didFinishLaunchingNotification,
                                                                     object: nil, queue: .main) { _ in
            MainActor.assumeIsolated {
                if let observer = launchObservers.removeValue(forKey: key) { environment.notifications.removeObserver(observer) }
                if environment.pushEvents.application().delegate != nil { install(in: environment) }
            }
        }
    }

    /// The token callback: the token goes to the source serving `application`.
    static func receive(deviceToken: Data, from application: UIApplication) {
        let source = ApplicationPushEventSource.serving(application)
        Task { await source.receive(deviceToken: deviceToken) }
    }

    /// The remote-notification callback: a BuzzKit push is answered by the source serving
    /// `application`, its completion called once on the main thread (true); any other is not
    /// touched (false: the app's implementation gets it).
    static func receive(userInfo: [AnyHashable: Any], from application: UIApplication,
                        completion: @escaping (UIBackgroundFetchResult) -> Void) -> Bool {
        // iOS's 30 s run from this callback: the arrival is read here, before any task waits
        // for a thread. The user info is read once, here, and the SDK works off the main thread.
        let receivedAt = Date()
        guard let members = try? JSONValue.members(userInfo: userInfo), BuzzKitNotification.owns(userInfo: members) else {
            return false
        }
        let box = CompletionBox(completion)
        let source = ApplicationPushEventSource.serving(application)
        Task {
            let result = await source.receive(members: members, receivedAt: receivedAt)
            box.call(result)
        }
        return true
    }
}

/// A completion handler iOS hands the app, called at most once, on the main thread.
final class CompletionBox: @unchecked Sendable {
    private var completion: ((UIBackgroundFetchResult) -> Void)?

    init(_ completion: @escaping (UIBackgroundFetchResult) -> Void) { self.completion = completion }

    @MainActor
    func call(_ result: UIBackgroundFetchResult) {
        completion?(result)
        completion = nil
    }
}

#endif
