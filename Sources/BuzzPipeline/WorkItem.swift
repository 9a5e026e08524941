import AMQPModel
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation

/// A delivery decoded for its stage.
enum WorkItem {
    case event(EventProcessor.Item)
    case message(PipelineMessage)
    /// A packed delivery (the scheduler's due timers, see ``Scheduler``): handled together.
    case messages([PipelineMessage])

    /// Decodes a delivery of `queue`; a message that cannot be understood is permanent.
    ///
    /// An event a worker sent back to its queue after an outage came through the default
    /// exchange (straight to the queue, so no other queue bound to the event gets a second
    /// copy); its original routing key, which names the tenant, travels in a header.
    static func decode(_ delivery: any BrokerDelivery, queue: Topology.Queue, now: Date) throws -> WorkItem {
        let routingKey = delivery.exchange.isEmpty ? delivery.headers[QueueWorker.originalRoutingKeyHeader]?.stringValue ?? delivery.routingKey
                                                   : delivery.routingKey
        return try decode(routingKey: routingKey, body: delivery.body, headers: delivery.headers, messageId: delivery.messageId, queue: queue, now: now)
    }

    /// Decodes a message of `queue` from its parts (any broker's delivery).
    static func decode(routingKey: String, body: Data, headers: [String: AMQPFieldValue], messageId: String?, queue: Topology.Queue,
                       now: Date) throws -> WorkItem {
        switch queue {
        case .trigger, .triggerBulk, .ackIngest:
            guard let dot = routingKey.firstIndex(of: "."), dot != routingKey.startIndex else {
                throw ServerError.input("routing key \"\(routingKey)\" is not <tenantId>.<event>")
            }
            let tenantId = String(routingKey[..<dot])
            guard body.count <= EventInput.maxBodyBytes else {
                throw ServerError.input("the body has \(body.count) bytes; an event has at most \(EventInput.maxBodyBytes) (1 MiB), as over HTTP")
            }
            let event: BuzzEvent
            do {
                // The same validation as POST /v1/events.
                event = try EventInput.parse(try JSONParser.parse(body), path: "", now: now)
            } catch let error as ServerError where error.code == .invalidInput {
                throw ServerError.input("the body is not a valid event: \(error)")
            } catch let failure as JSONParser.Failure where failure.isNUL {
                throw ServerError.input("the body is not a valid event: it holds a NUL (\\u0000) at byte \(failure.offset), which no string may hold")
            } catch {
                throw ServerError.input("the body is not a valid event: it is not JSON")
            }
            let expected = String(routingKey[routingKey.index(after: dot)...])
            guard expected == event.event else {
                throw ServerError.input("routing key names event \"\(expected)\" but the body says \"\(event.event)\"")
            }
            let dedupe = event.id.map { Topology.dedupeKey(eventId: $0, subscriberId: event.subscriberId,
                                                           fromDevice: headers[Topology.originHeader]?.stringValue == Topology.deviceOrigin) }
                ?? messageId.map { "msg:" + $0 }
            return .event(EventProcessor.Item(tenantId: tenantId, event: event, dedupeKey: dedupe, lane: queue.lane))
        case .planDispatch, .planDispatchBulk, .fallbackCheck:
            do {
                let messages = try PipelineMessage.decodeAll(body)
                return messages.count == 1 ? .message(messages[0]) : .messages(messages)
            } catch {
                throw ServerError.input("the body is not a pipeline message: \(error)")
            }
        }
    }
}
