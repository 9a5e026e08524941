import Foundation

/// The phone under one instance of the Apple model: its wall clock, its time zone, how it
/// waits, and the log of rules the app broke. Each simulated phone has its own; the model's
/// `UIApplication`, `UNUserNotificationCenter` and `NWPathMonitor` of that phone share it.
///
/// The model never reads `Date()` or `TimeZone.current`: the simulator (or a test) owns time,
/// so a phone can live in Kolkata on a manual clock beside one in Berlin on the real one.
public final class ModelDevice: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: @Sendable () -> Date
    private let zone: @Sendable () -> TimeZone
    private let sleeper: @Sendable (Date) async -> Void
    private var broken: [String] = []
    private var foreground = false
    private var unlockedSinceRestart = true

    /// A phone whose time is `now`, whose zone is `timeZone` (read each time: the person may
    /// fly), and which waits with `sleep(until:)` (returns early only if cancelled).
    public init(now: @escaping @Sendable () -> Date, timeZone: @escaping @Sendable () -> TimeZone,
                sleep: @escaping @Sendable (Date) async -> Void) {
        clock = now
        zone = timeZone
        sleeper = sleep
    }

    /// A phone on the real clock in `timeZone`.
    public convenience init(timeZone: TimeZone) {
        self.init(now: { Date() }, timeZone: { timeZone }, sleep: { deadline in
            let seconds = deadline.timeIntervalSinceNow
            if seconds > 0 { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
        })
    }

    /// The phone's time now.
    public var now: Date { clock() }
    /// The phone's time zone now (`TimeZone.current` on the phone).
    public var timeZone: TimeZone { zone() }

    /// Whether the app is in the foreground (set by the model's `UIApplication`; the
    /// notification center asks the app's delegate before showing a notification only then).
    public var appInForeground: Bool {
        get { lock.lock(); defer { lock.unlock() }; return foreground }
        set { lock.lock(); foreground = newValue; lock.unlock() }
    }

    /// Whether the phone was unlocked since it last restarted. Until then, files protected
    /// `completeUntilFirstUserAuthentication` (the default class) and Keychain items
    /// accessible `afterFirstUnlock` cannot be read: their class keys are derived from the
    /// passcode (Apple Platform Security, "Data Protection classes": "the class key is not
    /// available until the user unlocks the device after a restart").
    public var protectedDataAvailable: Bool {
        lock.lock(); defer { lock.unlock() }
        return unlockedSinceRestart
    }

    /// The phone restarts: locked, and not unlocked since (the driver ends the app's process).
    public func modelRestart() {
        lock.lock(); unlockedSinceRestart = false; lock.unlock()
    }

    /// The person unlocks the phone; returns whether this was the first unlock since it
    /// restarted (protected data became available).
    @discardableResult
    public func modelUnlock() -> Bool {
        lock.lock(); defer { lock.unlock() }
        defer { unlockedSinceRestart = true }
        return !unlockedSinceRestart
    }

    /// Waits until `deadline` on the phone's clock.
    public func sleep(until deadline: Date) async { await sleeper(deadline) }

    /// Records that the app broke one of iOS's rules (a completion handler called twice or off
    /// the main thread, a delegate doing UI work off it). On a real phone these crash the app
    /// or are killed by the watchdog; the model keeps going and the run fails on
    /// ``violations``.
    public func violate(_ rule: String) {
        lock.lock()
        broken.append(rule)
        lock.unlock()
    }

    /// Every rule the app broke, in order.
    public var violations: [String] {
        lock.lock()
        defer { lock.unlock() }
        return broken
    }
}
