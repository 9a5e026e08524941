import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

extension RunCommands {
    /// Whether `event` is a device's word on a plan (`$local.scheduled` or `$local.released`),
    /// which the API records itself instead of queueing it.
    public static func isDeviceWord(_ event: BuzzEvent) -> Bool {
        EventProcessor.isDeviceWord(event)
    }

    /// Records devices' acknowledgments and releases (validated by ``EventInput``) in
    /// PostgreSQL before the API answers, so an acknowledgment counts from the moment it is
    /// accepted: the fallback check at the window's moment reads the same table, whatever the
    /// `ack-ingest` queue is doing (stopped, restarting, or behind a burst). One statement per
    /// tenant, idempotent per device (each device's latest time of each kind wins), so a
    /// client's retry records nothing twice. `ack-ingest` records the device words that
    /// arrive over AMQP.
    ///
    /// Returns what the device is told: the local ids of acknowledgments that came after their
    /// window's fallback was decided (``AcknowledgmentOutcome/late``) and of plans whose run was
    /// cancelled (``AcknowledgmentOutcome/cancelled``), neither counted.
    ///
    /// - Throws: the store's error when PostgreSQL cannot record them (the API answers 503,
    ///   nothing is accepted, and the device retries).
    @discardableResult
    public func recordDeviceWords(tenantId: String, _ events: [BuzzEvent]) throws -> (late: Set<String>, cancelled: Set<String>) {
        guard !events.isEmpty else { return ([], []) }
        let facts = try events.map(EventProcessor.deviceAcknowledgment)
        let now = context.clock.now
        let outcome = try context.store.transaction { tx in try tx.recordAcknowledgments(tenantId: tenantId, facts, at: now) }
        EventProcessor.countDeviceWords(outcome, metrics: context.metrics)
        return (outcome.late, outcome.cancelled)
    }
}
