import Foundation

/// A wall clock that tests move by hand (shared by a provider and a stand-in, or not).
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date()) {
        current = start
    }

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    /// The clock as the closure configurations take.
    var function: @Sendable () -> Date { { [self] in now } }
}
