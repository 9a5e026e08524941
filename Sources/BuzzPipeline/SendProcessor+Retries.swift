import BuzzEngine
import BuzzServerCore
import BuzzStore
import Foundation

/// Lifetimes and durable retries (docs/contract.md §4c).
///
/// A push that fails for a passing reason (APNs 429 or 5xx after the provider's own quick
/// tries, a timeout, a provider closed by a shutdown) stays `failed` in the deliveries table and
/// its message is written to the outbox again, due after a backoff, in the transaction that
/// records the failure. The scheduler publishes it then; the stage's claim finds the `failed`
/// pairs (``DeliveryClaim/retry(since:)``) and sends only those, while pairs sent meanwhile are
/// done. So a retry survives restarts, and a fallback's decision never commits without either
/// its push or its retry. The retry's outbox row carries its run id, so the run's cancel (and
/// its subscriber's erasure) deletes it as it deletes the run's timers.
///
/// The backoff doubles without counting: the wait is the time since the first attempt, at
/// least ``minimumRetryWait`` and at most ``maximumRetryWait`` (5 s, 5 s, 10 s, 20 s, … 5 min),
/// or longer when APNs asked for it with `Retry-After`. A push is retried until its deadline:
///
/// | push | deadline |
/// | --- | --- |
/// | plan | its moment less the lane's least lead (after it the fallback covers the window) |
/// | alert, fallback | `apns-expiration`: the moment plus the send's `expiresAfter` |
/// | alert without a lifetime (written before lifetimes existed) | an hour after its first attempt |
/// | cancel | ``cancelLifetime`` after its first attempt (a sync removes the plan as well) |
///
/// At or after the deadline nothing is sent and the pair is recorded `expired`.
extension SendProcessor {
    /// The shortest wait before a retry, in seconds.
    static let minimumRetryWait: TimeInterval = 5
    /// The longest wait before a retry, in seconds.
    static let maximumRetryWait: TimeInterval = 300
    /// How long a cancel is retried after its first attempt, in seconds (a day).
    static let cancelLifetime: TimeInterval = 86_400

    /// Until when `target` may still be sent.
    func deadline(of target: Target, now: Date) -> Date {
        let firstTry = firstAttempt(of: target, now: now)
        switch target.message {
        case .sendPlan(_, _, _, let delivery):
            return delivery.moment.addingTimeInterval(-context.lanes.planMinimumLeadSeconds)
        case .sendAlert(_, _, _, _, let delivery):
            return delivery.expiresAt ?? firstTry.addingTimeInterval(Double(Step.Send.defaultExpiresAfter))
        case .sendCancel:
            return firstTry.addingTimeInterval(Self.cancelLifetime)
        case .timer:
            return now
        }
    }

    /// When the failed `target` is tried again, or nil when no try fits before its deadline
    /// (the last one goes a second before it).
    func retryTime(for target: Target, retryAfter: TimeInterval?, now: Date) -> Date? {
        let waited = now.timeIntervalSince(firstAttempt(of: target, now: now))
        let wait = max(min(max(waited, Self.minimumRetryWait), Self.maximumRetryWait), retryAfter ?? 0)
        let at = min(now.addingTimeInterval(wait), deadline(of: target, now: now).addingTimeInterval(-1))
        return at > now ? at : nil
    }

    /// Writes one outbox message a failed message, due at the earliest retry of its pairs.
    func scheduleRetries(_ failed: [(target: Target, retryAfter: TimeInterval?)], tx: any StoreTransaction, now: Date) throws {
        guard !failed.isEmpty else { return }
        var order: [String] = []
        var due: [String: (message: PipelineMessage, at: Date)] = [:]
        for (target, retryAfter) in failed {
            guard let at = retryTime(for: target, retryAfter: retryAfter, now: now) else { continue }
            let id = target.message.messageId
            if let known = due[id] {
                due[id]?.at = min(known.at, at)
            } else {
                order.append(id)
                due[id] = (target.message, at)
            }
        }
        let entries = order.compactMap { due[$0] }
        let messages = try entries.map { entry in
            OutboxMessage(routingKey: context.topology.name(entry.message.queue),
                          messageId: "retry:\(entry.message.messageId):\(Int64(entry.at.timeIntervalSince1970))",
                          body: try entry.message.encoded(), availableAt: entry.at)
        }
        // Tagged with their run, as timers are: a cancel of the run deletes a retry still
        // waiting (nothing after a cancel), and so does an erasure of its subscriber.
        _ = try tx.enqueue(messages, runIds: entries.map { $0.message.runId }, now: now)
        context.metrics.increment("buzzkit_push_retries_scheduled_total", by: Double(messages.count),
                                  help: "Messages whose pushes failed for a passing reason, written to the outbox to be sent again")
    }

    /// When `target` was first tried: now for a pair claimed for the first time.
    private func firstAttempt(of target: Target, now: Date) -> Date {
        if case .retry(let since) = target.claim { return since }
        return now
    }
}
