import BuzzKitWire
import Foundation

/// The one clock that moves only when told to, for the tests of the server, the SDK, push
/// delivery and the simulator.
///
/// Sleepers are resumed by ``advance(by:)`` and ``set(to:)`` once their deadline is reached;
/// a sleeper whose deadline has already passed returns at once, so no wake-up is lost.
public final class ManualClock: Clock, @unchecked Sendable {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var timeZone: TimeZone
        var nextToken = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Tokens handed out whose continuation is not registered yet.
        var unregistered: Set<Int> = []
        /// Unregistered tokens whose task was cancelled in the meantime.
        var cancelled: Set<Int> = []
    }

    private let state: LockedState<State>

    /// A clock standing at `now` in `timeZone`.
    public init(now: Date, timeZone: TimeZone) {
        state = LockedState(State(now: now, timeZone: timeZone))
    }

    /// A clock standing at `start` (now by default) in UTC: the server's tests.
    public convenience init(_ start: Date = Date()) {
        self.init(now: start, timeZone: TimeZone(identifier: "UTC")!)
    }

    /// The clock's instant.
    public var now: Date { state.withLock { $0.now } }

    /// The device's current zone.
    public var timeZone: TimeZone { state.withLock { $0.timeZone } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline any sleeper waits for.
    public var nextDeadline: Date? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// Moves the device to another zone. The instant does not change.
    public func setTimeZone(_ timeZone: TimeZone) {
        state.withLock { $0.timeZone = timeZone }
    }

    /// Moves the clock forward by `seconds` and wakes the sleepers that are due.
    public func advance(by seconds: TimeInterval) {
        precondition(seconds >= 0, "a manual clock only moves forward")
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.addingTimeInterval(seconds)
            return Self.takeDue(&state)
        }
        due.forEach { $0.resume() }
    }

    /// Moves the clock to `instant` (which must not be earlier) and wakes the due sleepers.
    public func set(to instant: Date) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            precondition(instant >= state.now, "a manual clock only moves forward")
            state.now = instant
            return Self.takeDue(&state)
        }
        due.forEach { $0.resume() }
    }

    /// Suspends until the clock reaches `deadline`.
    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let token = state.withLock { state -> Int in
            state.nextToken += 1
            state.unregistered.insert(state.nextToken)
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let verdict = state.withLock { state -> Bool? in
                    state.unregistered.remove(token)
                    if state.cancelled.remove(token) != nil { return false }
                    if state.now >= deadline { return true }
                    state.sleepers[token] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                switch verdict {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: token) { return sleeper }
                if state.unregistered.contains(token) { state.cancelled.insert(token) }
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func takeDue(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        let dueTokens = state.sleepers.filter { $0.value.deadline <= state.now }.map(\.key)
        return dueTokens.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
    }
}
