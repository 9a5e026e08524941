import Foundation

/// A long-running part of a process: the API, the workers of some queues, the scheduler.
///
/// ``run()`` blocks while the service works. ``shutdown(deadline:)`` may come from any
/// thread, at most once: the service stops taking new work at once, finishes (and
/// acknowledges) what it holds by `deadline`, and then ``run()`` returns. ``ServiceGroup``
/// runs several under one deadline.
public protocol Service: AnyObject, Sendable {
    /// For logs: "api", "workers", "scheduler".
    var name: String { get }
    /// Works until shut down; throws when it cannot start or fails for good.
    func run() throws
    /// Stop intake now; let ``run()`` return by `deadline`.
    func shutdown(deadline: Date)
}

/// The handoff between ``Service/shutdown(deadline:)`` and a ``Service/run()`` that waits
/// for it: the first request wins, every waiter gets its deadline.
public final class ShutdownRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var deadline: Date?
    private let requested = DispatchSemaphore(value: 0)

    public init() {}

    /// Asks for a shutdown by `deadline` (later requests change nothing).
    public func request(by deadline: Date) {
        let first = lock.withLock { () -> Bool in
            guard self.deadline == nil else { return false }
            self.deadline = deadline
            return true
        }
        if first { requested.signal() }
    }

    /// Blocks until a shutdown is requested; returns its deadline.
    public func wait() -> Date {
        requested.wait()
        requested.signal()  // for any other waiter
        return lock.withLock { deadline ?? Date() }
    }

    /// Waits at most `seconds` for a shutdown request; true when one came.
    public func wait(upTo seconds: TimeInterval) -> Bool {
        guard requested.wait(timeout: .now() + seconds) == .success else { return false }
        requested.signal()  // for any other waiter
        return true
    }

    /// The deadline, once requested.
    public var deadlineIfRequested: Date? { lock.withLock { deadline } }
}
