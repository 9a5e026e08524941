import Foundation

/// A value guarded by a lock: the one primitive behind the SDK's synchronous, thread-safe
/// ports (clocks, stores, test transports). Critical sections are short and never await.
/// Shared with `BuzzKitTesting` as SPI, not part of the SDK's API.
@_spi(BuzzKitTesting) public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    public var current: Value {
        withLock { $0 }
    }
}
