import Foundation

/// The time source of the server's logic: injected, never read with `Date()` inside it.
public protocol Clock: Sendable {
    func now() -> Date
}

/// The machine's clock.
public struct SystemClock: Clock {
    public init() {}
    public func now() -> Date { Date() }
}
