import Foundation

extension AMQPPublisher {
    /// The publisher thread: connect, write submitted messages, read confirms, reconnect and
    /// resend the unconfirmed after any failure.
    func runLoop() {
        var connection: AMQPConnection?
        var unconfirmed: [Pending] = []  // in delivery-tag order
        var head = 0                     // unconfirmed[..<head] are settled
        var nextTag: UInt64 = 1
        var backoff = 0.1
        var nodes = AMQPNodeCursor(configuration.endpoints)

        func settle(_ entry: Pending, _ result: Result<Void, AMQPError>) {
            guard !entry.done else { return }
            entry.done = true
            if case .success = result { lock.lock(); confirmedTotal += 1; lock.unlock() }
            entry.completion(result)
        }
        func compact() {
            while head < unconfirmed.count && unconfirmed[head].done { head += 1 }
            if head > 1024 && head * 2 > unconfirmed.count {
                unconfirmed.removeFirst(head)
                head = 0
            }
        }
        func dropConnection() {
            connection?.abandon()
            connection = nil
            // The node failed us: the next attempt starts at another (a cluster's quorum queues live on).
            nodes.advance()
            lock.lock(); connectedFlag = false; lock.unlock()
        }
        /// Tags and records every entry as unconfirmed first, then publishes them: if the
        /// connection breaks halfway, none is lost (all are resent after reconnecting).
        func write(_ entries: [Pending]) throws {
            for entry in entries {
                entry.tag = nextTag
                nextTag += 1
                unconfirmed.append(entry)
            }
            guard entries.count > 1 else { return try entries.forEach { try connection!.basicPublish($0.message) } }
            try connection!.corked { for entry in entries { try connection!.basicPublish(entry.message) } }
        }

        while true {
            lock.lock()
            let isStopping = stopping
            let deadline = drainDeadline
            let batch = submitted
            submitted.removeAll(keepingCapacity: true)
            lock.unlock()

            // Expire what waited too long (also while disconnected).
            let now = Date()
            for entry in batch where entry.deadline <= now {
                settle(entry, .failure(AMQPError(.timeout, "no confirm from RabbitMQ within \(configuration.confirmTimeout)s")))
            }
            for index in head..<unconfirmed.count where !unconfirmed[index].done && unconfirmed[index].deadline <= now {
                settle(unconfirmed[index], .failure(AMQPError(.timeout, "no confirm from RabbitMQ within \(configuration.confirmTimeout)s")))
            }
            compact()
            let outstanding = unconfirmed.count - head
            if isStopping && (outstanding == 0 && batch.isEmpty || now >= deadline) {
                for entry in unconfirmed[head...] { settle(entry, .failure(AMQPError(.closed, "the publisher stopped before RabbitMQ confirmed"))) }
                for entry in batch { settle(entry, .failure(AMQPError(.closed, "the publisher stopped"))) }
                connection?.close()
                lock.lock(); connectedFlag = false; lock.unlock()
                signalFinished()
                return
            }

            if connection == nil {
                do {
                    let fresh = try nodes.connect()
                    try fresh.confirmSelect()
                    try configuration.onConnect?(fresh)
                    connection = fresh
                    backoff = 0.1
                    lock.lock(); connectedFlag = true; lastConnectFailed = false; lock.unlock()
                    // Resend everything unconfirmed on the new channel, in order.
                    let resend = unconfirmed[head...].filter { !$0.done }
                    unconfirmed.removeAll(keepingCapacity: true)
                    head = 0
                    nextTag = 1
                    try write(resend)
                } catch {
                    dropConnection()
                    lock.lock()
                    lastConnectFailed = true
                    let failFast = configuration.failFastWhenDisconnected
                    // Keep the batch for the next attempt (or fail it fast).
                    if failFast {
                        lock.unlock()
                        let reason = (error as? AMQPError) ?? AMQPError(.connectionFailed, "\(error)")
                        for entry in batch { settle(entry, .failure(reason)) }
                    } else {
                        submitted.insert(contentsOf: batch, at: 0)
                        lock.unlock()
                    }
                    _ = waitOnWaker(timeout: backoff)
                    backoff = min(backoff * 2, 2)
                    continue
                }
            }

            do {
                try write(batch.filter { !$0.done })
                let heartbeat = Double(max(connection!.url.heartbeat, 2)) / 2
                // Always read (a zero timeout when idle): rabbitmq-c sends heartbeats from its reads.
                let readable = connection!.waitReadable(waker: waker, timeout: min(heartbeat, 1))
                try readConfirms(connection!, timeout: readable ? 0.05 : 0, unconfirmed: unconfirmed, head: head, settle: settle)
                compact()
            } catch {
                // The connection broke: everything unconfirmed is resent after reconnecting.
                if let amqp = error as? AMQPError, amqp.code == .brokerClosed, !amqp.isConnectionProblem {
                    // A channel-level refusal (e.g. missing exchange): fail what is outstanding.
                    for entry in unconfirmed[head...] { settle(entry, .failure(amqp)) }
                    compact()
                }
                dropConnection()
            }
        }
    }

    /// Reads every confirm that is already available (never blocks long).
    private func readConfirms(_ connection: AMQPConnection, timeout: TimeInterval, unconfirmed: [Pending], head: Int,
                              settle: (Pending, Result<Void, AMQPError>) -> Void) throws {
        var first = true
        while first || connection.hasBufferedInput {
            first = false
            switch try connection.read(timeout: timeout, consuming: false) {
            case .confirm(let tag, let multiple, let ack):
                let result: Result<Void, AMQPError> = ack ? .success(()) : .failure(AMQPError(.nacked, "RabbitMQ refused the message (basic.nack); it was not stored"))
                if multiple {
                    var index = head
                    while index < unconfirmed.count && unconfirmed[index].tag <= tag {
                        settle(unconfirmed[index], result)
                        index += 1
                    }
                } else if let entry = find(tag, in: unconfirmed, from: head) {
                    settle(entry, result)
                }
            case .nothing, .delivery, .cancelOk, .consumerCancelled:
                break
            }
        }
        connection.releaseBuffers()
    }

    private func find(_ tag: UInt64, in entries: [Pending], from head: Int) -> Pending? {
        var low = head, high = entries.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if entries[mid].tag == tag { return entries[mid] }
            if entries[mid].tag < tag { low = mid + 1 } else { high = mid - 1 }
        }
        return nil
    }

    private func waitOnWaker(timeout: TimeInterval) -> Bool {
        var fd = pollfd(fd: waker.descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&fd, 1, Int32(timeout * 1000))
        if ready > 0 { waker.drain() }
        return ready > 0
    }
}
