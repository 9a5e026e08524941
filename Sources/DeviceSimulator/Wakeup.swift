import Foundation

/// A sleep that a poke ends early. Each phone's notification center sleeps until its next
/// trigger date and is poked when that may have changed: a request added or removed, or the
/// phone moved to another zone. Polling instead (four looks a second at every phone's
/// requests) cost a 10,000-subscriber fleet about a core, the harness's own load.
final class Wakeup: @unchecked Sendable {
    private let lock = NSLock()
    private var waiter: CheckedContinuation<Void, Never>?
    private var poked = false

    /// Ends the wait under way, or else the next one at once.
    func poke() {
        lock.lock()
        guard let waiter else {
            poked = true
            lock.unlock()
            return
        }
        self.waiter = nil
        lock.unlock()
        waiter.resume()
    }

    /// Waits until `deadline` (by `sleep`), a poke or the task's cancellation, whichever comes
    /// first.
    func wait(until deadline: Date, sleep: @escaping @Sendable (Date) async throws -> Void) async {
        let timer = Task {
            do { try await sleep(deadline) } catch { return }
            self.poke()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if poked || Task.isCancelled {
                    poked = false
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            poke()
        }
    }
}
