import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// What the API records of a cancelling event as it accepts it: its ``CancelMark``, pending
/// until the trigger stage handles the event. A timer that comes first (the trigger stage
/// lagging behind a RabbitMQ restart or a backlog) replays it on its run (``CancelMarks``), so
/// a cancel counts from its 202 as an acknowledgment does, and no fallback or push goes out
/// after it.
///
/// Which names cancel runs in a tenant is kept for ``ttl`` seconds, so an event that cancels
/// nothing costs the API no statement; a workflow that starts cancelling on a new name counts
/// within that, or at once where the tenant-change notification reaches the process
/// (``forget(tenantId:)``). A mark missed that way is recorded when the trigger stage handles
/// the event, as before marks were recorded on acceptance.
public final class AcceptedCancels: @unchecked Sendable {
    /// How long a tenant's cancelling names are kept.
    public let ttl: TimeInterval
    private let names: ExpiringCache<String, Set<String>>

    /// - Parameter maxTenants: tenants kept at most; past it the cache starts again.
    public init(ttl: TimeInterval = 5, maxTenants: Int = 10_000) {
        self.ttl = ttl
        self.names = ExpiringCache(maxEntries: maxTenants)
    }

    /// Forgets a tenant's names (nil: every tenant's), after its workflows changed.
    public func forget(tenantId: String?) {
        if let tenantId { names.remove(tenantId) } else { names.removeAll() }
    }

    /// Whether ``record(_:tenantId:context:)`` may need PostgreSQL for `events`: the tenant's
    /// names are not at hand, or one of the events cancels. Otherwise the API skips the call
    /// (and the hop to a blocking thread) altogether.
    public func mayRecord(_ events: [BuzzEvent], tenantId: String, now: Date) -> Bool {
        guard !events.isEmpty else { return false }
        guard let kept = names.fresh(tenantId, now: now) else { return true }
        return events.contains { kept.contains($0.event) }
    }

    /// Records the marks of the cancelling events among `events` (accepted now, all of
    /// `tenantId`), pending; returns how many events cancel. One statement when any does,
    /// none otherwise (besides reading the tenant's names once per ``ttl``).
    /// - Throws: the store's error when PostgreSQL cannot be read or written.
    @discardableResult
    public func record(_ events: [BuzzEvent], tenantId: String, context: PipelineContext) throws -> Int {
        guard !events.isEmpty else { return 0 }
        let now = context.clock.now
        let cancelling = try self.names(tenantId: tenantId, now: now, context: context)
        let marks = events.filter { cancelling.contains($0.event) }.map { CancelMark($0, now: now, pending: true) }
        guard !marks.isEmpty else { return 0 }
        try context.store.transaction { try $0.recordCancelMarks(tenantId: tenantId, marks) }
        return marks.count
    }

    private func names(tenantId: String, now: Date, context: PipelineContext) throws -> Set<String> {
        if let kept = names.fresh(tenantId, now: now) { return kept }
        let loaded = try context.store.transaction { try $0.cancelEventNames(tenantId: tenantId) }
        names.store(loaded, for: tenantId, until: now.addingTimeInterval(ttl))
        return loaded
    }
}
