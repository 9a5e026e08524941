import Foundation

/// Runs a process's services together and stops them together, under one deadline: what
/// `buzzkit api`, `worker`, `scheduler` and `dev` are made of.
///
/// Each service runs on a thread of its own. The first SIGTERM or SIGINT (or
/// ``requestShutdown(reason:)``, or a service whose ``Service/run()`` throws) starts the
/// shutdown: every service is told at once to stop intake and finish by the same deadline,
/// `grace` seconds later; `cleanup` (closing the publisher and the pool) gets what is left
/// of it. So the process is gone within `grace` of the signal however many services it runs.
/// A second signal during the drain exits at once with status 130.
public final class ServiceGroup: @unchecked Sendable {
    let services: [any Service]
    let grace: TimeInterval
    let log: Log
    private let lock = NSLock()
    private var reason: String?
    private var failure: (any Error)?
    private let wake = DispatchSemaphore(value: 0)

    public init(_ services: [any Service], grace: TimeInterval, log: Log) {
        self.services = services
        self.grace = grace
        self.log = log
    }

    /// Starts the shutdown (the first call only).
    public func requestShutdown(reason: String) {
        let first = lock.withLock { () -> Bool in
            guard self.reason == nil else { return false }
            self.reason = reason
            return true
        }
        if first { wake.signal() }
    }

    /// Runs every service until the shutdown, then waits for them until the deadline and
    /// calls `cleanup(deadline)`. `handlesSignals`: watch SIGTERM/SIGINT (they must be blocked
    /// in every thread, ``SignalWaiter/blockTerminationSignals()``). Throws the first
    /// service's failure, if one failed.
    public func run(handlesSignals: Bool = true, cleanup: (_ deadline: Date) -> Void = { _ in }) throws {
        if handlesSignals {
            SignalWaiter.watch { [self] signal in requestShutdown(reason: "signal \(signal)") }
        }
        let finished = DispatchGroup()
        for service in services {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                do {
                    try service.run()
                } catch {
                    lock.withLock { if failure == nil { failure = error } }
                    log.error("service failed", ["service": service.name, "error": "\(error)"])
                }
                requestShutdown(reason: "\(service.name) stopped")
            }
            thread.name = "buzzkit-\(service.name)"
            thread.start()
        }
        wake.wait()
        let deadline = Date().addingTimeInterval(grace)
        log.info("shutting down", ["reason": lock.withLock { reason ?? "" }, "grace": "\(grace)"])
        for service in services { service.shutdown(deadline: deadline) }
        if finished.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut {
            log.warning("grace period over with work still in flight; it will be redelivered", ["grace": "\(grace)"])
        }
        cleanup(deadline)
        if let failure = lock.withLock({ failure }) { throw failure }
    }
}
