import Dispatch

/// A caller of ``PostgresPool`` waiting in line for a connection. The pool serves its line in
/// order: a connection given back goes to the first waiter (``connection``), and a slot freed
/// by a connection that closed lets the first waiter open one (``mayOpen``, the slot already
/// counted as open for it). Either is set under the pool's lock before ``wake`` is signalled.
final class PoolWaiter {
    let wake = DispatchSemaphore(value: 0)
    var connection: PostgresConnection?
    var mayOpen = false

    /// Waits until woken or until `deadline`; false when the deadline passed first (the pool
    /// may still have served this waiter meanwhile: look before giving up).
    func wait(until deadline: DispatchTime) -> Bool {
        wake.wait(timeout: deadline) == .success
    }
}
