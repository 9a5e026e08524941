#if canImport(UIKit) && canImport(ObjectiveC)
import BuzzKitWire
import Foundation
import ObjectiveC
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
@available(iOSApplicationExtension, unavailable)
@MainActor
enum AppDelegateHook {
    private static var hooked: Set<ObjectIdentifier> = []

    typealias TokenIMP = @convention(c) (AnyObject, Selector, UIApplication, Data) -> Void
    typealias ErrorIMP = @convention(c) (AnyObject, Selector, UIApplication, NSError) -> Void
    typealias FetchIMP = @convention(c) (AnyObject, Selector, UIApplication, NSDictionary,
                                         @escaping @convention(block) (UIBackgroundFetchResult) -> Void) -> Void

    static let tokenSelector = #selector(UIApplicationDelegate.application(_:didRegisterForRemoteNotificationsWithDeviceToken:))
    static let errorSelector = #selector(UIApplicationDelegate.application(_:didFailToRegisterForRemoteNotificationsWithError:))
    static let fetchSelector = #selector(UIApplicationDelegate.application(_:didReceiveRemoteNotification:fetchCompletionHandler:))

    /// Hooks the current app delegate's class (once).
    static func install() {
        let application = UIApplication.shared
        guard let delegate = application.delegate else {
            // Configured before UIKit set the delegate (a SwiftUI `App`'s initializer): hook it
            // as launching finishes, before the token or a push can come.
            waitForLaunch()
            return
        }
        guard !(delegate is BuzzKitAppDelegate) else { return }
        let cls: AnyClass = object_getClass(delegate) ?? type(of: delegate)
        guard hooked.insert(ObjectIdentifier(cls)).inserted else { return }
        hookToken(cls)
        hookFailure(cls)
        hookFetch(cls)
        application.delegate = nil
        application.delegate = delegate
    }

    private static var launchObserver: NSObjectProtocol?

    private static func waitForLaunch() {
        guard launchObserver == nil else { return }
        launchObserver = NotificationCenter.default.addObserver(forName: UIApplication.didFinishLaunchingNotification, object: nil,
                                                                queue: .main) { _ in
            MainActor.assumeIsolated {
                if let observer = launchObserver { NotificationCenter.default.removeObserver(observer) }
                launchObserver = nil
                if UIApplication.shared.delegate != nil { install() }
            }
        }
    }

    /// Gives `cls` BuzzKit's implementation of `selector` and returns the one it had (its own,
    /// or inherited), for BuzzKit's to call. An inherited implementation (a `FlutterAppDelegate`
    /// subclass) is not changed in the superclass: `cls` gets a method of its own instead.
    private static func replace(_ cls: AnyClass, _ selector: Selector, with block: Any, types: String) -> IMP? {
        let implementation = imp_implementationWithBlock(block)
        let existing = class_getInstanceMethod(cls, selector)
        let previous = existing.map(method_getImplementation)
        if class_addMethod(cls, selector, implementation, existing.flatMap(method_getTypeEncoding).map { String(cString: $0) } ?? types) {
            return previous
        }
        guard let existing else { return nil }
        return method_setImplementation(existing, implementation)
    }

    private static func hookToken(_ cls: AnyClass) {
        var previous: IMP?
        let block: @convention(block) (AnyObject, UIApplication, Data) -> Void = { target, application, token in
            Task { await ApplicationPushEventSource.shared.receive(deviceToken: token) }
            if let previous { unsafeBitCast(previous, to: TokenIMP.self)(target, tokenSelector, application, token) }
        }
        previous = replace(cls, tokenSelector, with: block, types: "v@:@@")
    }

    private static func hookFailure(_ cls: AnyClass) {
        var previous: IMP?
        let block: @convention(block) (AnyObject, UIApplication, NSError) -> Void = { target, application, error in
            if let previous { unsafeBitCast(previous, to: ErrorIMP.self)(target, errorSelector, application, error) }
        }
        previous = replace(cls, errorSelector, with: block, types: "v@:@@")
    }

    private static func hookFetch(_ cls: AnyClass) {
        var previous: IMP?
        let block: @convention(block) (AnyObject, UIApplication, NSDictionary, @escaping @convention(block) (UIBackgroundFetchResult) -> Void) -> Void = {
            target, application, userInfo, completion in
            let payload = userInfo as? [AnyHashable: Any] ?? [:]
            if let members = try? JSONValue.members(userInfo: payload), BuzzKitNotification.owns(userInfo: members) {
                let box = CompletionBox(completion)
                let received = SendableUserInfo(payload)
                Task { @MainActor in
                    box.call(await ApplicationPushEventSource.shared.receive(userInfo: received.value))
                }
            } else if let previous {
                unsafeBitCast(previous, to: FetchIMP.self)(target, fetchSelector, application, userInfo, completion)
            } else {
                completion(.noData)
            }
        }
        previous = replace(cls, fetchSelector, with: block, types: "v@:@@@?")
    }
}

/// A completion handler iOS hands the app, called at most once, on the main thread.
private final class CompletionBox: @unchecked Sendable {
    private var completion: ((UIBackgroundFetchResult) -> Void)?

    init(_ completion: @escaping (UIBackgroundFetchResult) -> Void) { self.completion = completion }

    @MainActor
    func call(_ result: UIBackgroundFetchResult) {
        completion?(result)
        completion = nil
    }
}

/// A push's user info (property-list values from APNs' JSON) carried into a task.
private struct SendableUserInfo: @unchecked Sendable {
    let value: [AnyHashable: Any]
    init(_ value: [AnyHashable: Any]) { self.value = value }
}
#endif
