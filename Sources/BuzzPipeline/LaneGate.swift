import BuzzServerCore
import BuzzStore
import Foundation

/// Keeps a bulk queue's consumer to a bounded share of its time while interactive work waits.
///
/// After each batch, a bulk worker thread asks the gate whether the interactive partner queue
/// (`trigger` for `trigger-bulk`, `plan-dispatch` for `plan-dispatch-bulk`) has messages
/// waiting: in the broker (messages ready, asked at most every ``probeInterval``) or handed to this process's own partner consumer and not yet taken. If
/// so, the thread pauses `busy × (1 − share) / share` (``pause(afterBusy:share:)``), so it
/// works at most `share` of the time; it resumes at once when the partner queue empties.
/// With no interactive work waiting, bulk work runs at full speed.
///
/// The gate paces consumers wherever they run: bulk workers in their own deployment yield the
/// database and the CPU they share with the interactive workers, not only worker threads. The
/// ``WindowCompleter`` yields the same way to `fallback-check` and the scheduler's backlog.
package final class LaneGate: @unchecked Sendable {
    let share: Double
    let partner: Topology.Queue
    let probeInterval: TimeInterval = 0.1
    private let broker: (any Broker)?
    private let localWaiting: @Sendable () -> Int
    private let lock = NSLock()
    private var lastProbe = Date.distantPast
    private var brokerWaiting = 0
    private var failedAt = Date.distantPast

    /// - Parameters:
    ///   - broker: the broker to ask for the partner queue's depth (nil: `localWaiting` alone).
    ///   - localWaiting: deliveries of the partner queue this process holds and has not begun
    ///     (0 when the partner is consumed elsewhere).
    package init(share: Double, partner: Topology.Queue, broker: (any Broker)?, localWaiting: @escaping @Sendable () -> Int) {
        self.share = share
        self.partner = partner
        self.broker = broker
        self.localWaiting = localWaiting
    }

    /// How long a bulk thread pauses after a batch that took `busy` seconds, so that it works
    /// at most `share` of the time (capped at 2 s, so a slow batch does not park it long).
    static func pause(afterBusy busy: TimeInterval, share: Double) -> TimeInterval {
        guard share < 1, busy > 0 else { return 0 }
        return min(2, busy * (1 - share) / share)
    }

    /// Whether interactive work is waiting now.
    var interactiveWaiting: Bool {
        if localWaiting() > 0 { return true }
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        if now.timeIntervalSince(lastProbe) >= probeInterval {
            lastProbe = now
            brokerWaiting = probeBroker(now: now)
        }
        return brokerWaiting > 0
    }

    /// Called by a bulk worker thread after a batch: pauses while interactive work waits,
    /// for at most ``pause(afterBusy:share:)``; returns early when `stop()` becomes true.
    /// Returns the seconds it paused.
    @discardableResult
    package func yield(afterBusy busy: TimeInterval, stop: () -> Bool) -> TimeInterval {
        guard interactiveWaiting else { return 0 }
        let started = Date()
        let until = started.addingTimeInterval(Self.pause(afterBusy: busy, share: share))
        while Date() < until && !stop() && interactiveWaiting {
            Thread.sleep(forTimeInterval: min(0.02, max(0, until.timeIntervalSinceNow)))
        }
        return Date().timeIntervalSince(started)
    }

    /// Messages ready in the partner queue. When the broker cannot be asked the gate lets
    /// bulk work run rather than stall it, and asks again a second later.
    private func probeBroker(now: Date) -> Int {
        guard let broker, now.timeIntervalSince(failedAt) >= 1 else { return 0 }
        do {
            return try broker.readyCount(partner)
        } catch {
            failedAt = now
            return 0
        }
    }
}
