import AMQPClient
import BuzzKitWire
import Foundation

/// A delivery decoded for its stage.
enum WorkItem {
    case event(EventProcessor.Item)
    case message(PipelineMessage)

    /// Decodes a delivery of `queue`; a message that cannot be understood is permanent.
    static func decode(_ delivery: AMQPDelivery, queue: Topology.Queue, now: Date) throws -> WorkItem {
        switch queue {
        case .trigger, .ackIngest:
            guard let dot = delivery.routingKey.firstIndex(of: "."), dot != delivery.routingKey.startIndex else {
                throw PipelineError.permanent("routing key \"\(delivery.routingKey)\" is not <tenantId>.<event>")
            }
            let tenantId = String(delivery.routingKey[..<dot])
            let event: BuzzEvent
            do {
                // The same validation as POST /v1/events.
                event = try EventInput.parse(try JSONParser.parse(delivery.body), path: "", now: now)
            } catch let error as InputError {
                throw PipelineError.permanent("the body is not a valid event: \(error)")
            } catch {
                throw PipelineError.permanent("the body is not a valid event: it is not JSON")
            }
            let expected = String(delivery.routingKey[delivery.routingKey.index(after: dot)...])
            guard expected == event.event else {
                throw PipelineError.permanent("routing key names event \"\(expected)\" but the body says \"\(event.event)\"")
            }
            let dedupe = event.id.map { Topology.dedupeKey(eventId: $0, subscriberId: event.subscriberId,
                                                           fromDevice: delivery.headers[Topology.originHeader]?.stringValue == Topology.deviceOrigin) }
                ?? delivery.messageId.map { "msg:" + $0 }
            return .event(EventProcessor.Item(tenantId: tenantId, event: event, dedupeKey: dedupe))
        case .planDispatch, .fallbackCheck:
            do {
                return .message(try PipelineMessage.decode(delivery.body))
            } catch {
                throw PipelineError.permanent("the body is not a pipeline message: \(error)")
            }
        }
    }
}

/// Processes a batch of decoded items for one queue and returns the outbox rows to relay.
struct StageProcessor {
    let context: PipelineContext

    func process(_ items: [WorkItem]) throws -> [Outbox.Row] {
        var events: [EventProcessor.Item] = []
        var timers: [TimerProcessor.Item] = []
        var sends: [PipelineMessage] = []
        for item in items {
            switch item {
            case .event(let event): events.append(event)
            case .message(.timer(let tenantId, let runId, let timer)): timers.append(.init(tenantId: tenantId, runId: runId, timer: timer))
            case .message(let message): sends.append(message)
            }
        }
        var rows: [Outbox.Row] = []
        if !events.isEmpty {
            rows += try context.store.transaction { try EventProcessor(context: context).process(events, tx: $0) }
        }
        if !timers.isEmpty {
            rows += try context.store.transaction { try TimerProcessor(context: context).process(timers, tx: $0) }
        }
        if !sends.isEmpty {
            try SendProcessor(context: context).process(sends)
        }
        return rows
    }
}
