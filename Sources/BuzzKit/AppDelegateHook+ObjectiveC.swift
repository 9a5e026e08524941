#if canImport(UIKit) && canImport(ObjectiveC) && !NO_APPLE_FRAMEWORKS
import Foundation
import ObjectiveC
import UIKit

/// The hook's methods given to the delegate's class with the Objective-C runtime.
@available(iOSApplicationExtension, unavailable)
extension AppDelegateHook {
    typealias TokenIMP = @convention(c) (AnyObject, Selector, UIApplication, Data) -> Void
    typealias ErrorIMP = @convention(c) (AnyObject, Selector, UIApplication, NSError) -> Void
    typealias FetchIMP = @convention(c) (AnyObject, Selector, UIApplication, NSDictionary,
                                         @escaping @convention(block) (UIBackgroundFetchResult) -> Void) -> Void

    static let tokenSelector = #selector(UIApplicationDelegate.application(_:didRegisterForRemoteNotificationsWithDeviceToken:))
    static let errorSelector = #selector(UIApplicationDelegate.application(_:didFailToRegisterForRemoteNotificationsWithError:))
    static let fetchSelector = #selector(UIApplicationDelegate.application(_:didReceiveRemoteNotification:fetchCompletionHandler:))

    /// The delegate's runtime class (a KVO subclass included).
    static func hookedClass(of delegate: any UIApplicationDelegate) -> AnyClass {
        object_getClass(delegate) ?? type(of: delegate)
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

    static func hookToken(_ cls: AnyClass) {
        var previous: IMP?
        let block: @convention(block) (AnyObject, UIApplication, Data) -> Void = { target, application, token in
            MainActor.assumeIsolated { receive(deviceToken: token, from: application) }
            if let previous { unsafeBitCast(previous, to: TokenIMP.self)(target, tokenSelector, application, token) }
        }
        previous = replace(cls, tokenSelector, with: block, types: "v@:@@")
    }

    static func hookFailure(_ cls: AnyClass) {
        var previous: IMP?
        let block: @convention(block) (AnyObject, UIApplication, NSError) -> Void = { target, application, error in
            if let previous { unsafeBitCast(previous, to: ErrorIMP.self)(target, errorSelector, application, error) }
        }
        previous = replace(cls, errorSelector, with: block, types: "v@:@@")
    }

    static func hookFetch(_ cls: AnyClass) {
        var previous: IMP?
        let block: @convention(block) (AnyObject, UIApplication, NSDictionary, @escaping @convention(block) (UIBackgroundFetchResult) -> Void) -> Void = {
            target, application, userInfo, completion in
            let payload = userInfo as? [AnyHashable: Any] ?? [:]
            let taken = MainActor.assumeIsolated { receive(userInfo: payload, from: application, completion: completion) }
            if taken { return }
            if let previous {
                unsafeBitCast(previous, to: FetchIMP.self)(target, fetchSelector, application, userInfo, completion)
            } else {
                completion(.noData)
            }
        }
        previous = replace(cls, fetchSelector, with: block, types: "v@:@@@?")
    }
}
#endif
