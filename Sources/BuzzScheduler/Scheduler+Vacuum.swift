import BuzzPipeline
import BuzzServerCore
import BuzzStore
import Foundation

/// The outbox is a queue table: every claim deletes its rows, and every claim and every look
/// at the next due time walks the due index from its oldest entry, through the entries of the
/// rows deleted since the table was last vacuumed. Autovacuum looks at a table at most once a
/// minute (its default `autovacuum_naptime`); a steady 3,500 timers a second leave 200,000
/// such entries by then, and each of the scheduler's 25 rounds a second walked about a
/// thousand index pages of them. So the scheduler vacuums the outbox itself, every
/// ``Scheduler/Configuration/vacuumEvery`` rows it claims, on a thread of its own so that no
/// relay loop waits for it. Not while rounds come back full: a 07:00 burst is claimed first,
/// and its rows' space reclaimed after.
extension Scheduler {
    /// Counts claimed rows; past ``Configuration/vacuumEvery``, after a round that was not
    /// full, starts a vacuum unless one runs.
    func noteClaimed(_ count: Int, full: Bool) {
        guard configuration.vacuumEvery > 0 else { return }
        lock.lock()
        claimedSinceVacuum += count
        let start = !full && claimedSinceVacuum >= configuration.vacuumEvery && !vacuuming
        if start {
            claimedSinceVacuum = 0
            vacuuming = true
        }
        lock.unlock()
        guard start else { return }
        let thread = Thread { self.vacuumOutbox() }
        thread.name = "buzzkit.scheduler.vacuum"
        thread.start()
    }

    private func vacuumOutbox() {
        defer {
            lock.lock()
            vacuuming = false
            lock.unlock()
        }
        let started = Date()
        do {
            try outbox.vacuum()
            metrics?.increment("buzzkit_outbox_vacuums_total", help: "Vacuums of the outbox run by the scheduler")
            metrics?.increment("buzzkit_outbox_vacuum_seconds_total", by: Date().timeIntervalSince(started),
                               help: "Seconds the scheduler's vacuums of the outbox took")
        } catch {
            // Autovacuum still comes; the next threshold tries again.
            log?.warning("outbox vacuum failed", ["error": "\(error)"])
        }
    }

    /// Waits (up to `timeout`) for a vacuum in flight, so a stopping scheduler leaves none behind.
    func waitForVacuum(timeout: TimeInterval) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            lock.lock()
            let running = vacuuming
            lock.unlock()
            if !running { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
