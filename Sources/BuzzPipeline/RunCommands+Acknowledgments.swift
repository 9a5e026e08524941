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
    /// `ack-ingest` queue is doing (stopped, restarting, or behind a burst). Requests that
    /// arrive together are recorded in one transaction a tenant (``DeviceWordBatcher``),
    /// idempotent per device (each device's latest time of each kind wins), so a client's
    /// retry records nothing twice. `ack-ingest` records the device words that arrive over
    /// AMQP.
    ///
    /// Returns what the device is told: the local ids of its acknowledgments that came after
    /// their window's fallback was decided (``AcknowledgmentOutcome/late``) and of plans whose
    /// run was cancelled (``AcknowledgmentOutcome/cancelled``), neither counted. With
    /// `erasures` (a device's request), words of an erased subscriber record nothing and the
    /// answer names it (looked up with the other requests', one query a transaction).
    ///
    /// - Throws: ``ServerError/input(_:reason:field:)`` for a word naming no plan; the store's
    ///   error when PostgreSQL cannot record them (the API answers 503, nothing is accepted,
    ///   and the device retries).
    @discardableResult
    public func recordDeviceWords(tenantId: String, _ events: [BuzzEvent], refusingErasedIn erasures: (any Directory)? = nil) throws -> DeviceWordAnswer {
        guard !events.isEmpty else { return DeviceWordAnswer() }
        let facts = try events.map(EventProcessor.deviceAcknowledgment)
        let context = self.context
        let answer = try deviceWords.record(tenantId: tenantId, facts, refusingErasedIn: erasures) { entries in
            DeviceWordBatcher.settle(entries) { tenantId, facts in
                let now = context.clock.now
                let outcome = try context.store.transaction { tx in try tx.recordAcknowledgments(tenantId: tenantId, facts, at: now) }
                EventProcessor.countDeviceWords(outcome, metrics: context.metrics)
                context.metrics.increment("buzzkit_device_word_transactions_total",
                                          help: "Transactions that recorded devices' words for the API, each for every request of its tenant that came meanwhile")
                return outcome
            }
        }
        if answer.erasedSubscriber == nil {
            context.metrics.increment("buzzkit_device_word_requests_total", help: "API requests whose devices' words were recorded")
        }
        return answer
    }
}
