import Foundation

/// Whether a simulated app's code may run, for the pieces that stand in for the process:
/// its clock (timers do not fire while suspended) and its network (no requests while
/// suspended; a request in flight when the app is suspended only returns when it runs again,
/// as a failure that may have reached the server).
final class AppGate: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false
    private var suspensions = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var inFlight = 0
    private var cut = 0

    /// Whether the app runs now.
    var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    /// How many times the app stopped running so far (a request that sees this change was
    /// frozen mid-flight).
    var generation: Int {
        lock.lock(); defer { lock.unlock() }
        return suspensions
    }

    /// The app runs (background or foreground) or stops (suspended, not running).
    func set(running isRunning: Bool) {
        lock.lock()
        let wasRunning = running
        running = isRunning
        if wasRunning && !isRunning {
            suspensions += 1
            cut += inFlight
        }
        let woken = isRunning ? waiters : []
        if isRunning { waiters = [] }
        lock.unlock()
        for waiter in woken { waiter.resume() }
    }

    /// A request of the app's left for the server / came back.
    func requestBegan() { lock.withLock { inFlight += 1 } }
    func requestEnded() { lock.withLock { inFlight -= 1 } }

    /// How many requests a suspension froze mid-flight so far (their answer, whatever it was,
    /// reaches the app only when it runs again).
    var requestsCut: Int { lock.withLock { cut } }

    /// Returns once the app runs.
    func whenRunning() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if running {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}
