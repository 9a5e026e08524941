import AMQPClient
import Foundation
import PostgresClient

/// The transactional outbox: messages are inserted in the same transaction as the state
/// change that causes them, and published only after that commits.
///
/// Immediate messages take a fast path: after its commit the worker publishes them itself
/// (with confirms) and deletes their rows. Their rows carry a short lease (`available_at` a
/// few seconds ahead), so the scheduler relays them only if that worker died in between.
/// Timer rows (`availableAt` in the future) are always relayed by the scheduler.
public enum Outbox {
    /// Seconds the inserting worker has to publish an immediate message before the
    /// scheduler takes over.
    public static let relayLease: TimeInterval = 5
    /// The NOTIFY channel that wakes schedulers for timers due soon.
    public static let channel = "buzzkit_outbox"
    /// Timers due within this many seconds wake the scheduler through NOTIFY; later ones are
    /// picked up by its regular look at the next due time.
    public static let notifyHorizon: TimeInterval = 2

    /// A row written by ``insert(_:now:on:)``.
    public struct Row: Sendable {
        public var id: Int64
        public var message: OutboxMessage
        /// The messages packed in `message` when the worker that wrote the row makes their sends
        /// itself right after its commit (``SendProcessor/sendAfterCommit(_:)``): the row is
        /// then deleted, or, if that fails, relayed like any other.
        var sendAfterCommit: [PipelineMessage] = []

        public init(id: Int64, message: OutboxMessage) { (self.id, self.message) = (id, message) }
    }

    /// Inserts `messages` on `db` (inside the caller's transaction) and returns the rows.
    /// Immediate rows get the relay lease; a timer due soon also sends a NOTIFY (delivered
    /// at commit).
    @discardableResult
    public static func insert(_ messages: [OutboxMessage], runId: UUID? = nil, now: Date, on db: PostgresConnection) throws -> [Row] {
        try insert(messages, runIds: Array(repeating: runId, count: messages.count), now: now, on: db)
    }

    /// Inserts `messages`, each tagged with its run id (nil for immediate messages).
    @discardableResult
    public static func insert(_ messages: [OutboxMessage], runIds: [UUID?], now: Date, on db: PostgresConnection) throws -> [Row] {
        guard !messages.isEmpty else { return [] }
        let available = messages.map { $0.availableAt ?? now.addingTimeInterval(relayLease) }
        let windows = messages.map(\.window)
        let rows = try db.query("""
            INSERT INTO outbox (available_at, exchange, routing_key, message_id, body, run_id, window_tenant_id, window_subscriber_id, window_local_id,
                                window_message_id, items)
            SELECT a, e, r, m, b, NULLIF(x, '')::uuid, NULLIF(wt, ''), NULLIF(ws, ''), NULLIF(wl, ''), NULLIF(wm, ''), n
            FROM unnest(\(available)::timestamptz[], \(messages.map(\.exchange))::text[],
                   \(messages.map(\.routingKey))::text[], \(messages.map(\.messageId))::text[], \(messages.map(\.body))::bytea[],
                   \(runIds.map { $0?.lowercasedText ?? "" })::text[], \(windows.map { $0?.tenantId ?? "" })::text[],
                   \(windows.map { $0?.subscriberId ?? "" })::text[], \(windows.map { $0?.localId ?? "" })::text[],
                   \(windows.map { $0?.messageId ?? "" })::text[], \(messages.map(\.items))::int[]) AS u(a, e, r, m, b, x, wt, ws, wl, wm, n)
            RETURNING id, message_id
            """)
        // RETURNING order is not guaranteed: match rows to messages by message id.
        var idsByMessage: [String: Int64] = [:]
        for row in rows { idsByMessage[try row.decode("message_id")] = try row.decode("id", as: Int64.self) }
        if messages.contains(where: { $0.availableAt.map { $0.timeIntervalSince(now) < notifyHorizon } ?? false }) {
            try db.notify(channel)
        }
        return messages.map { Row(id: idsByMessage[$0.messageId] ?? -1, message: $0) }
    }

    /// The fast path: publishes committed immediate rows with confirms, then deletes them.
    /// A failure leaves them for the scheduler (after the lease), so nothing is lost.
    public static func relay(_ rows: [Row], broker: any Broker, outbox: any OutboxStore, log: Log? = nil) {
        let immediate = rows.filter { $0.message.availableAt == nil }
        guard !immediate.isEmpty else { return }
        do {
            let messages = immediate.map { amqpMessage($0.message) }
            try broker.publishAndWait(messages)
            try outbox.deleteRelayed(immediate.map(\.id))
        } catch {
            // Left in the outbox: the scheduler publishes it once the lease runs out.
            log?.warning("outbox relay failed; the scheduler publishes these messages after the lease",
                         ["messages": "\(immediate.count)", "lease_seconds": "\(Int(relayLease))", "error": "\(error)"])
        }
    }

    static func amqpMessage(_ message: OutboxMessage) -> AMQPMessage {
        AMQPMessage(exchange: message.exchange, routingKey: message.routingKey, body: message.body,
                    headers: message.items > 1 ? [Topology.itemsHeader: .int(Int64(message.items))] : [:], messageId: message.messageId)
    }

    /// `messages` with those bound for a queue in `packable` (whose bodies are single pipeline
    /// messages) packed `size` at a time into one (``PipelineMessage/pack(_:)``); order within
    /// a queue is kept. A stage's batch of plans is then one outbox row and one broker message,
    /// and due timers one broker message per batch, instead of one each.
    static func packed(_ messages: [OutboxMessage], packing packable: Set<String>, size: Int) -> [OutboxMessage] {
        guard size > 1 else { return messages }
        var out: [OutboxMessage] = []
        var groups: [String: [OutboxMessage]] = [:]
        var order: [String] = []
        for message in messages {
            guard message.items == 1, message.exchange.isEmpty, message.window == nil, packable.contains(message.routingKey) else {
                out.append(message)
                continue
            }
            if groups[message.routingKey] == nil { order.append(message.routingKey) }
            groups[message.routingKey, default: []].append(message)
        }
        for queue in order {
            let group = groups[queue] ?? []
            for start in stride(from: 0, to: group.count, by: size) {
                let chunk = Array(group[start..<min(start + size, group.count)])
                guard chunk.count > 1 else {
                    out += chunk
                    continue
                }
                out.append(OutboxMessage(routingKey: queue, messageId: "pack:" + chunk[0].messageId, body: PipelineMessage.pack(chunk.map(\.body)),
                                         availableAt: chunk.map(\.availableAt).contains(nil) ? nil : chunk.compactMap(\.availableAt).min(),
                                         items: chunk.count))
            }
        }
        return out
    }

    /// The broker messages for `messages`, packed (``packed(_:packing:size:)``).
    static func amqpMessages(_ messages: [OutboxMessage], packing packable: Set<String>, size: Int) -> [AMQPMessage] {
        packed(messages, packing: packable, size: size).map(amqpMessage)
    }
}
