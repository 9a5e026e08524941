#if canImport(UIKit) && !canImport(ObjectiveC) && !NO_APPLE_FRAMEWORKS
import Foundation
import UIKit

/// The hook's methods given to the delegate's class through the Apple model's stand-in for the
/// Objective-C runtime (Linux has none): `UIApplicationDelegateRuntime` keeps an implementation
/// per class, found before the class's own, and hands back the previous one, as
/// `class_addMethod`/`method_setImplementation` do. What each method does is the same code as on
/// iOS (``AppDelegateHook/receive(userInfo:from:completion:)``).
@available(iOSApplicationExtension, unavailable)
extension AppDelegateHook {
    /// The delegate's class.
    static func hookedClass(of delegate: any UIApplicationDelegate) -> AnyClass {
        type(of: delegate)
    }

    static func hookToken(_ cls: AnyClass) {
        UIApplicationDelegateRuntime.replaceToken(of: cls) { previous in
            { target, application, token in
                receive(deviceToken: token, from: application)
                previous(target, application, token)
            }
        }
    }

    static func hookFailure(_ cls: AnyClass) {
        UIApplicationDelegateRuntime.replaceFailure(of: cls) { previous in previous }
    }

    static func hookFetch(_ cls: AnyClass) {
        UIApplicationDelegateRuntime.replaceFetch(of: cls) { previous in
            { target, application, userInfo, completion in
                if receive(userInfo: userInfo, from: application, completion: completion) { return }
                previous(target, application, userInfo, completion)
            }
        }
    }
}
#endif
