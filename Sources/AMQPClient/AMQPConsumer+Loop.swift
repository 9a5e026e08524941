import Foundation

extension AMQPConsumer {
    /// The consumer thread.
    func runLoop() {
        var generation = 0
        var backoff = 0.1
        var nodes = AMQPNodeCursor(configuration.endpoints)
        defer { finished.signal() }
        while true {
            lock.lock()
            let stopping = stopRequested
            lock.unlock()
            if stopping { return }
            generation += 1
            let connection: AMQPConnection
            do {
                connection = try nodes.connect()
                try configuration.onConnect?(connection)
                try connection.basicQos(prefetch: configuration.prefetch)
                try connection.basicConsume(queue: configuration.queue, consumerTag: configuration.consumerTag)
            } catch {
                onError?((error as? AMQPError) ?? AMQPError(.connectionFailed, "\(error)"))
                sleepUnlessStopped(backoff)
                backoff = min(backoff * 2, 2)
                continue
            }
            backoff = 0.1
            lock.lock()
            connectedFlag = true
            // Settlements of an older connection's deliveries cannot be sent any more.
            settlements.removeAll { $0.generation != generation }
            inFlight = 0
            lock.unlock()
            let finishedCleanly = consume(connection, generation: generation)
            lock.lock()
            connectedFlag = false
            lock.unlock()
            if finishedCleanly {
                connection.close()
                return
            }
            connection.abandon()
            // The node failed us: try the others first (a cluster's quorum queues live on).
            nodes.advance()
        }
    }

    /// Consumes until a stop completes (true) or the connection fails (false).
    private func consume(_ connection: AMQPConnection, generation: Int) -> Bool {
        var cancelSent = false
        var cancelConfirmed = false
        // RabbitMQ can still hand over deliveries that were in flight when cancel-ok was
        // sent; the cancel counts as done only after a short quiet period.
        var quietSince = Date.distantFuture
        var announced = false
        var coalescer = SettlementCoalescer()
        let heartbeat = Double(max(connection.url.heartbeat, 2)) / 2
        do {
            while true {
                try flushSettlements(connection, generation: generation, coalescer: &coalescer)
                lock.lock()
                let stopping = stopRequested
                let cancelling = cancelRequested
                let deadline = stopDeadline
                let unsettled = inFlight
                lock.unlock()
                if cancelling && !cancelSent {
                    try connection.sendCancel(consumerTag: configuration.consumerTag)
                    cancelSent = true
                }
                if cancelConfirmed && !announced && Date().timeIntervalSince(quietSince) > 0.5 {
                    announced = true
                    confirmCancel()
                }
                if stopping && (announced && unsettled == 0 || Date() >= deadline) {
                    return true
                }
                let readable = connection.waitReadable(waker: waker, timeout: min(heartbeat, cancelSent ? 0.05 : 1))
                // A zero-timeout read when idle still lets rabbitmq-c send heartbeats.
                switch try connection.read(timeout: readable ? 1 : 0, consuming: true) {
                case .delivery(let raw):
                    if cancelConfirmed { quietSince = Date() }
                    lock.lock()
                    inFlight += 1
                    lock.unlock()
                    coalescer.delivered(raw.deliveryTag)
                    handler(AMQPDelivery(raw: raw, queue: configuration.queue, generation: generation, consumer: self))
                case .cancelOk:
                    cancelConfirmed = true
                    quietSince = Date()
                case .consumerCancelled:
                    throw AMQPError(.brokerClosed, "the broker cancelled the subscription to \(configuration.queue) (queue deleted?)")
                case .confirm, .nothing:
                    break
                }
                connection.releaseBuffers()
            }
        } catch {
            onError?((error as? AMQPError) ?? AMQPError(.connectionLost, "\(error)"))
            return false
        }
    }

    /// Sends the settlements queued since the last turn, coalesced (``SettlementCoalescer``).
    private func flushSettlements(_ connection: AMQPConnection, generation: Int, coalescer: inout SettlementCoalescer) throws {
        lock.lock()
        let pending = settlements
        settlements.removeAll(keepingCapacity: true)
        lock.unlock()
        let current = pending.filter { $0.generation == generation }.map { (tag: $0.tag, outcome: $0.outcome) }
        guard !current.isEmpty else { return }
        for frame in coalescer.frames(for: current) {
            switch frame.outcome {
            case .ack: try connection.basicAck(frame.tag, multiple: frame.multiple)
            case .nack(let requeue): try connection.basicNack(frame.tag, requeue: requeue)
            case .reject(let requeue): try connection.basicReject(frame.tag, requeue: requeue)
            }
        }
        lock.lock()
        inFlight -= current.count
        lock.unlock()
    }

    private func sleepUnlessStopped(_ seconds: TimeInterval) {
        var fd = pollfd(fd: waker.descriptor, events: Int16(POLLIN), revents: 0)
        if poll(&fd, 1, Int32(seconds * 1000)) > 0 { waker.drain() }
    }
}
