import Foundation

/// Turns the settlements a consumer flushes into as few frames as AMQP allows.
///
/// A `basic.ack` with `multiple` settles every delivery of the channel up to its tag that is
/// still outstanding. So when the deliveries settled in a flush are acks and include the
/// oldest outstanding one, the longest such run from the oldest is sent as one frame. The
/// rest (acks out of order, nacks, rejects) go one by one. A quorum queue applies each frame
/// as one command to its log: a worker settling a batch of 300 events sends 1 frame, not 300.
///
/// It tracks the consumer's outstanding tags (in delivery order, which is increasing order on
/// one channel); one instance serves one connection's channel.
struct SettlementCoalescer {
    /// One frame to send.
    struct Frame: Equatable {
        var tag: UInt64
        var outcome: AMQPConsumer.Settlement
        /// Settles every outstanding delivery up to `tag` (acks only).
        var multiple: Bool
    }

    /// Delivered tags, oldest first; `outstanding[head...]` may still be unsettled.
    private var outstanding: [UInt64] = []
    private var head = 0
    /// Tags after `head` that a frame already settled on its own.
    private var settledOutOfOrder: Set<UInt64> = []

    /// Deliveries handed out and not settled by any frame yet.
    var outstandingCount: Int { outstanding.count - head - settledOutOfOrder.count }

    /// Records a delivery handed to the handler.
    mutating func delivered(_ tag: UInt64) {
        outstanding.append(tag)
    }

    /// The frames that settle `settlements` (each delivery settled once).
    mutating func frames(for settlements: [(tag: UInt64, outcome: AMQPConsumer.Settlement)]) -> [Frame] {
        guard !settlements.isEmpty else { return [] }
        var pending: [UInt64: AMQPConsumer.Settlement] = [:]
        pending.reserveCapacity(settlements.count)
        for item in settlements where pending[item.tag] == nil { pending[item.tag] = item.outcome }
        var frames: [Frame] = []
        // The run of acks from the oldest outstanding delivery.
        var last: UInt64?, covered = 0
        while head < outstanding.count {
            let tag = outstanding[head]
            if settledOutOfOrder.remove(tag) != nil { head += 1; continue }
            guard case .ack? = pending[tag] else { break }
            pending[tag] = nil
            last = tag
            covered += 1
            head += 1
        }
        if let last { frames.append(Frame(tag: last, outcome: .ack, multiple: covered > 1)) }
        for (tag, outcome) in pending.sorted(by: { $0.key < $1.key }) {
            frames.append(Frame(tag: tag, outcome: outcome, multiple: false))
            if isOutstanding(tag) { settledOutOfOrder.insert(tag) }
        }
        if head >= 1024 && head * 2 >= outstanding.count {
            outstanding.removeFirst(head)
            head = 0
        }
        return frames
    }

    /// Whether `tag` was delivered and not passed by `head` (binary search: tags increase).
    private func isOutstanding(_ tag: UInt64) -> Bool {
        var low = head, high = outstanding.count
        while low < high {
            let middle = (low + high) / 2
            if outstanding[middle] < tag { low = middle + 1 } else { high = middle }
        }
        return low < outstanding.count && outstanding[low] == tag
    }
}
