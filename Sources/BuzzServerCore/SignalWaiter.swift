import Foundation

/// SIGTERM / SIGINT handling for long-running processes.
///
/// ``blockTerminationSignals()`` must run in `main` before any thread starts, so every
/// thread inherits the mask; ``watch(_:)`` then receives the first signal synchronously on a
/// thread of its own, and a second signal during the drain exits the process at once.
public enum SignalWaiter {
    public static func blockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Blocks until SIGTERM or SIGINT arrives; returns its number.
    public static func wait() -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        var received: Int32 = 0
        sigwait(&set, &received)
        return received
    }

    /// Starts a thread that calls `first` with the first SIGTERM or SIGINT, and exits the
    /// process with status 130 on the next one.
    public static func watch(_ first: @escaping @Sendable (Int32) -> Void) {
        let thread = Thread {
            first(wait())
            let signal = wait()
            FileHandle.standardError.write(Data("second signal (\(signal)): exiting now\n".utf8))
            exit(130)
        }
        thread.name = "buzzkit-signals"
        thread.start()
    }
}
