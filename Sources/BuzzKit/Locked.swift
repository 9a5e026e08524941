import Foundation

/// A value guarded by a lock: the one primitive behind the SDK's synchronous, thread-safe
/// ports (clocks, stores, test transports). Critical sections are short and never await.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    var current: Value {
        withLock { $0 }
    }
}
