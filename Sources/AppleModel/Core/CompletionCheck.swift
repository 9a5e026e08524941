import Foundation

/// One completion handler iOS handed the app, with iOS's two rules about it: call it once,
/// and on the main thread.
///
/// Apple, `UNUserNotificationCenterDelegate.userNotificationCenter(_:didReceive:withCompletionHandler:)`:
/// "The block to execute when you have finished processing the user's response. You must
/// execute this block at some point after processing the user's response to let the system
/// know that you are done." `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`:
/// "Your app has up to 30 seconds of wall-clock time to process the notification and call the
/// specified completion handler block." UIKit and UserNotifications call their delegates on the
/// main thread and their completion blocks assert it (`-[UIApplication _handleNonLaunchSpecificActions...]`
/// traps with "Call must be made on main thread").
///
/// A second call or a call off the main thread is recorded on the device as a violation; the
/// first call's value is what iOS acts on.
public final class CompletionCheck<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let device: ModelDevice
    private let what: String
    private var value: Value?
    private var waiters: [CheckedContinuation<Value?, Never>] = []
    private var closed = false

    /// A check for the completion handler of `what` (named in violations).
    public init(_ what: String, on device: ModelDevice) {
        self.what = what
        self.device = device
    }

    /// The handler to give the app.
    public func handler() -> @Sendable (Value) -> Void {
        { [self] value in self.call(value) }
    }

    private func call(_ value: Value) {
        if !Thread.isMainThread { device.violate("\(what): completion handler called off the main thread") }
        lock.lock()
        if self.value != nil {
            lock.unlock()
            device.violate("\(what): completion handler called twice")
            return
        }
        self.value = value
        let waiting = closed ? [] : waiters
        waiters = []
        lock.unlock()
        for waiter in waiting { waiter.resume(returning: value) }
    }

    /// The value the app answered, once it has; `nil` when ``cutOff()`` came first.
    public func answer() async -> Value? {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let value {
                lock.unlock()
                continuation.resume(returning: value)
            } else if closed {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    /// The app's answer, or `nil` when it has not come within `seconds` on the device's clock
    /// (iOS's 30 s), after which iOS stops waiting (``cutOff()``).
    public func answer(within seconds: TimeInterval) async -> Value? {
        let device = self.device
        let deadline = device.now.addingTimeInterval(seconds)
        let timer = Task {
            await device.sleep(until: deadline)
            if !Task.isCancelled { self.cutOff() }
        }
        defer { timer.cancel() }
        return await answer()
    }

    /// iOS stops waiting (the 30 s are up): waiters get `nil`; a later call is still checked.
    public func cutOff() {
        lock.lock()
        closed = true
        let waiting = value == nil ? waiters : []
        waiters = []
        lock.unlock()
        for waiter in waiting { waiter.resume(returning: nil) }
    }

    /// Whether the app has answered.
    public var answered: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value != nil
    }
}
