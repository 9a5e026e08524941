import AppleModelCore
import Foundation

/// What happens to the app, as the simulator (or a test) makes it happen: launches, the
/// person opening and leaving it, silent pushes, zone and clock changes.
extension UIApplication {
    /// iOS launches the app: `delegate` becomes the app delegate and its
    /// `application(_:didFinishLaunchingWithOptions:)` runs, then
    /// `didFinishLaunchingNotification` is posted. `foreground`: the person launched it (it then
    /// becomes active); otherwise iOS launched it in the background (for a silent push).
    public func modelLaunch(delegate: any UIApplicationDelegate, foreground: Bool) {
        setState(foreground ? .inactive : .background)
        self.delegate = delegate
        _ = delegate.application(self, didFinishLaunchingWithOptions: nil)
        modelNotificationCenter.post(name: Self.didFinishLaunchingNotification, object: self)
        if foreground { modelBecomeActive() }
    }

    /// The person brings the app to the screen.
    public func modelBecomeActive() {
        if applicationState == .background {
            modelNotificationCenter.post(name: Self.willEnterForegroundNotification, object: self)
        }
        setState(.active)
        modelNotificationCenter.post(name: Self.didBecomeActiveNotification, object: self)
    }

    /// The person leaves the app (home screen, another app, the lock button). The app runs
    /// until the observers of `didEnterBackgroundNotification` have had their turn on the main
    /// queue (Apple: the app "is moved to the background ... shortly afterward, the system
    /// suspends it" unless a background task holds it); a background task they begin keeps it
    /// running.
    public func modelEnterBackground() {
        beginWake()
        setState(.background)
        modelNotificationCenter.post(name: Self.didEnterBackgroundNotification, object: self)
        DispatchQueue.main.async {
            DispatchQueue.main.async { MainActor.assumeIsolated { self.endWake() } }
        }
    }

    /// The phone's time zone changed (`NSSystemTimeZoneDidChange`, posted by Foundation).
    public func modelTimeZoneDidChange() {
        modelNotificationCenter.post(name: .NSSystemTimeZoneDidChange, object: nil)
        modelNotificationCenter.post(name: Self.significantTimeChangeNotification, object: self)
    }

    /// The person unlocked the phone for the first time since it restarted: UIKit tells a
    /// running app (`protectedDataDidBecomeAvailableNotification`, and the delegate's
    /// `applicationProtectedDataDidBecomeAvailable(_:)`, which the SDK does not need).
    public func modelProtectedDataDidBecomeAvailable() {
        modelNotificationCenter.post(name: Self.protectedDataDidBecomeAvailableNotification, object: self)
    }

    /// A silent push reaches the app: the delegate's remote-notification callback, on the main
    /// thread, with 30 s to call its completion. Returns the app's answer, or `nil` when iOS
    /// stopped waiting (the app is suspended then, its work stopped where it was) or the
    /// process ended meanwhile (``modelTerminated``).
    public func modelDeliverSilentPush(userInfo: sending [AnyHashable: Any]) async -> UIBackgroundFetchResult? {
        guard let delegate else { return nil }
        let check = CompletionCheck<UIBackgroundFetchResult>(
            "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)", on: modelDevice)
        let handler = check.handler()
        let key = ObjectIdentifier(check)
        silentPushes[key] = { check.cutOff() }
        beginWake()
        // iOS calls the delegate from the main run loop, not from inside a task, so a task the
        // app starts in the callback runs at the main thread's priority (`.high`), not at the
        // priority of whatever delivered the push (measured: called from the simulator's
        // `.medium` push task, the SDK's wakes ran below every phone's script and their timers
        // woke 3–10 s late in the 10,000-subscriber burst).
        nonisolated(unsafe) let payload = userInfo
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                UIApplicationDelegateRuntime.fetch(of: type(of: delegate))(delegate, self, payload) { result in handler(result) }
            }
        }
        let answer = await check.answer(within: 30)
        if silentPushes.removeValue(forKey: key) != nil { endWake() }
        return answer
    }
}
