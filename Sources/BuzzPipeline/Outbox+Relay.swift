import AMQPModel
import BuzzServerCore
import BuzzStore
import Foundation

extension Outbox {
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
}
