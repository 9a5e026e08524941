import AMQPModel
import BuzzServerCore
import BuzzStore
import Foundation

extension QueueWorker {
    /// Decodes, processes and settles one batch.
    func handle(_ batch: [any BrokerDelivery]) {
        let started = Date()
        let redelivered = batch.filter(\.redelivered).count
        if redelivered > 0 {
            context.metrics.increment("buzzkit_messages_redelivered_total", ["queue": queue.rawValue], by: Double(redelivered),
                                      help: "Deliveries the broker marked as redelivered (a consumer died or gave them back)")
        }
        var decoded: [(any BrokerDelivery, WorkItem)] = []
        for delivery in batch {
            do {
                decoded.append((delivery, try WorkItem.decode(delivery, queue: queue, now: context.clock.now)))
            } catch {
                deadLetter(delivery, reason: "\(error)")
            }
        }
        guard !decoded.isEmpty else { return }
        do {
            let rows = try processor.process(decoded.map(\.1))
            relay(rows)
            decoded.forEach { $0.0.ack() }
            count("processed", decoded.count)
        } catch {
            context.log.warning("batch failed; retrying its messages one by one",
                                ["queue": queue.rawValue, "messages": "\(decoded.count)", "error": "\(error)"])
            if decoded.count == 1 {
                settleFailure(decoded[0].0, item: decoded[0].1, error: error)
            } else {
                for (delivery, item) in decoded { handleOne(delivery, item) }
            }
        }
        context.metrics.observe("buzzkit_batch_seconds", ["queue": queue.rawValue], Date().timeIntervalSince(started),
                                help: "Seconds to process one batch of deliveries")
    }

    private func handleOne(_ delivery: any BrokerDelivery, _ item: WorkItem) {
        do {
            relay(try processor.process([item]))
            delivery.ack()
            count("processed", 1)
        } catch {
            settleFailure(delivery, item: item, error: error)
        }
    }

    /// Permanent → dead-letter now; outage → hold and retry, then back to the queue without
    /// using an attempt; anything else → back to the queue (its delivery limit, counted across
    /// outage returns, dead-letters a message that keeps failing).
    private func settleFailure(_ delivery: any BrokerDelivery, item: WorkItem, error: Error) {
        if ServerError.outcome(of: error) == .permanent {
            deadLetter(delivery, reason: "\(error)")
            return
        }
        var lastError = error
        let deadline = Date().addingTimeInterval(settings.outageHold)
        var backoff = 0.1
        while ServerError.outcome(of: lastError) == .outage && Date() < deadline && !isDraining {
            Thread.sleep(forTimeInterval: backoff)
            backoff = min(backoff * 2, 2)
            do {
                relay(try processor.process([item]))
                delivery.ack()
                count("processed", 1)
                return
            } catch {
                lastError = error
            }
        }
        switch ServerError.outcome(of: lastError) {
        case .permanent:
            deadLetter(delivery, reason: "\(lastError)")
            return
        case .outage:
            returnAfterOutage(delivery, error: lastError)
            return
        case .retry:
            break
        }
        let attempts = QueueWorker.attemptsUsed(delivery) + 1
        if attempts >= context.topology.deliveryLimit {
            deadLetter(delivery, reason: "failed \(attempts) times, the last: \(lastError)")
            return
        }
        count("failed", 1)
        context.log.warning("message failed; returned to the queue", ["queue": queue.rawValue, "message_id": delivery.messageId ?? "",
                                                                      "delivery_count": "\(delivery.deliveryCount)", "error": "\(lastError)"])
        delivery.nack(requeue: true)
    }

    private func relay(_ rows: [Outbox.Row]) {
        Outbox.relay(rows, broker: relayBroker, outbox: outbox, log: context.log)
    }

    /// Publishes the message to the queue's dead-letter queue with the reason, then acks it.
    func deadLetter(_ delivery: any BrokerDelivery, reason: String) {
        var headers = delivery.headers
        headers["x-buzzkit-error"] = .string(String(reason.prefix(1000)))
        headers["x-buzzkit-queue"] = .string(queue.rawValue)
        if republish(delivery, to: context.topology.deadLetterName(queue), headers: headers) {
            count("dead_lettered", 1)
            context.log.warning("message dead-lettered", ["queue": queue.rawValue, "message_id": delivery.messageId ?? "", "reason": String(reason.prefix(300))])
        } else {
            // Could not park it: leave it to the queue (and its delivery limit).
            delivery.nack(requeue: true)
        }
    }

    /// Publishes a copy of `delivery` (its body, id and `headers`, plus its original routing key
    /// in a header) straight to `queueName`, and acks the original once the broker confirmed
    /// the copy. False, with the original unsettled, when the broker did not take it.
    ///
    /// The routing key header is the key the delivery came with through an events exchange,
    /// whatever header a publisher put on it; only a worker's own copy (through the default
    /// exchange) keeps the one it carries.
    func republish(_ delivery: any BrokerDelivery, to queueName: String, headers: [String: AMQPFieldValue]) -> Bool {
        var headers = headers
        if !delivery.exchange.isEmpty || headers[Self.originalRoutingKeyHeader] == nil {
            headers[Self.originalRoutingKeyHeader] = .string(delivery.routingKey)
        }
        let copy = AMQPMessage(routingKey: queueName, body: delivery.body, headers: headers, messageId: delivery.messageId,
                               contentType: delivery.contentType)
        do {
            try broker.publishAndWait([copy])
        } catch {
            return false
        }
        delivery.ack()
        return true
    }

    func count(_ outcome: String, _ n: Int) {
        context.metrics.increment("buzzkit_messages_total", ["queue": queue.rawValue, "outcome": outcome], by: Double(n),
                                  help: "Messages handled per queue: processed, failed (requeued), dead_lettered, outage_returned (an outage outlasted the hold)")
    }
}
