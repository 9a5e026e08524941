import AMQPModel
import BuzzServerCore
import BuzzStore
import Foundation

extension Outbox {
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
    package static func amqpMessages(_ messages: [OutboxMessage], packing packable: Set<String>, size: Int) -> [AMQPMessage] {
        packed(messages, packing: packable, size: size).map(amqpMessage)
    }
}
