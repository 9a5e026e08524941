import Foundation

/// The model's stand-in for the three Objective-C runtime calls an SDK makes to hook an app
/// delegate's class (`class_getInstanceMethod`, `class_addMethod`, `method_setImplementation`):
/// Swift on Linux has no Objective-C runtime. As there, an implementation is per class, is
/// found before the class's own, and a replacement is built over the previous one (the
/// class's own when none was installed), for the hook to call on.
///
/// `UIApplication` in the model dispatches the three push callbacks through this table, as
/// UIKit's `objc_msgSend` reaches a swizzled method.
@MainActor
public enum UIApplicationDelegateRuntime {
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    public typealias Token = @MainActor (AnyObject, UIApplication, Data) -> Void
    /// `application(_:didFailToRegisterForRemoteNotificationsWithError:)`.
    public typealias Failure = @MainActor (AnyObject, UIApplication, any Error) -> Void
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    public typealias Fetch = @MainActor (AnyObject, UIApplication, [AnyHashable: Any], @escaping (UIBackgroundFetchResult) -> Void) -> Void

    private static var tokens: [ObjectIdentifier: Token] = [:]
    private static var failures: [ObjectIdentifier: Failure] = [:]
    private static var fetches: [ObjectIdentifier: Fetch] = [:]

    /// Gives `cls` the token callback `make` builds over the one it had.
    public static func replaceToken(of cls: AnyClass, with make: (_ previous: @escaping Token) -> Token) {
        tokens[ObjectIdentifier(cls)] = make(token(of: cls))
    }

    /// Gives `cls` the failure callback `make` builds over the one it had.
    public static func replaceFailure(of cls: AnyClass, with make: (_ previous: @escaping Failure) -> Failure) {
        failures[ObjectIdentifier(cls)] = make(failure(of: cls))
    }

    /// Gives `cls` the remote-notification callback `make` builds over the one it had.
    public static func replaceFetch(of cls: AnyClass, with make: (_ previous: @escaping Fetch) -> Fetch) {
        fetches[ObjectIdentifier(cls)] = make(fetch(of: cls))
    }

    static func token(of cls: AnyClass) -> Token {
        tokens[ObjectIdentifier(cls)] ?? { target, application, token in
            (target as? any UIApplicationDelegate)?.application(application, didRegisterForRemoteNotificationsWithDeviceToken: token)
        }
    }

    static func failure(of cls: AnyClass) -> Failure {
        failures[ObjectIdentifier(cls)] ?? { target, application, error in
            (target as? any UIApplicationDelegate)?.application(application, didFailToRegisterForRemoteNotificationsWithError: error)
        }
    }

    static func fetch(of cls: AnyClass) -> Fetch {
        fetches[ObjectIdentifier(cls)] ?? { target, application, userInfo, completion in
            guard let delegate = target as? any UIApplicationDelegate else { return completion(.noData) }
            delegate.application(application, didReceiveRemoteNotification: userInfo, fetchCompletionHandler: completion)
        }
    }
}
