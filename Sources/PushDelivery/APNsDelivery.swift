import BuzzCrypto
import Foundation

/// One notification on its way: its batch slot, the `apns-id` kept across retries, the
/// attempts so far and the token the last attempt carried.
final class APNsDelivery: @unchecked Sendable {
    let notification: PushNotification
    let apnsId: UUID
    let batch: Batch
    let index: Int
    // Changed only by whoever holds the delivery: the sending thread for the first attempt,
    // then the loop thread (submit happens-before the completion runs).
    var attempts = 0
    var lastStatus: Int?
    var token: ProviderTokenCache.Token?
    /// The `Retry-After` of the last answer, in seconds, when it had one.
    var retryAfter: TimeInterval?

    init(notification: PushNotification, batch: Batch, index: Int) {
        self.notification = notification
        self.apnsId = notification.apnsId ?? RandomIdentifier.uuid()
        self.batch = batch
        self.index = index
    }

    /// The HTTP/2 request for the next attempt, per docs/contract.md §4:
    /// `POST <base>/3/device/<token>` with `authorization: bearer <jwt>`, `apns-topic`,
    /// `apns-push-type`, `apns-priority`, `apns-id`, and `apns-expiration` (epoch seconds)
    /// and `apns-collapse-id` when set.
    func request(baseURL: String, token: ProviderTokenCache.Token) -> HTTPRequest {
        var headers: [(name: String, value: String)] = [
            ("authorization", token.bearer),
            ("apns-topic", notification.topic),
            ("apns-push-type", notification.pushType.rawValue),
            ("apns-priority", String(notification.priority)),
            ("apns-id", apnsId.uuidString),
        ]
        if let expiration = notification.expiration {
            let seconds = max(0, Int64(expiration.timeIntervalSince1970.rounded(.down)))
            headers.append(("apns-expiration", String(seconds)))
        }
        if let collapseId = notification.collapseId {
            headers.append(("apns-collapse-id", collapseId))
        }
        return HTTPRequest(url: baseURL + "/3/device/" + notification.deviceToken.lowercased(),
                           headers: headers, body: notification.payload)
    }

    /// Hands the final outcome to the batch.
    func finish(_ outcome: PushResult.Outcome) {
        var retryAfter: TimeInterval?
        if case .failed = outcome { retryAfter = self.retryAfter }
        batch.complete(index, with: PushResult(outcome: outcome, apnsId: attempts > 0 ? apnsId : nil,
                                               status: lastStatus, attempts: attempts, retryAfter: retryAfter))
    }

    /// The results of one ``PushProvider/send(_:)`` call as they arrive, and the caller's wait
    /// for the last one.
    final class Batch: @unchecked Sendable {
        private let condition = NSCondition()
        private var results: [PushResult?]
        private var remaining: Int

        /// A batch of `count` pushes.
        init(count: Int) {
            results = Array(repeating: nil, count: count)
            remaining = count
        }

        /// Records the result of push `index` (the first result for an index wins).
        func complete(_ index: Int, with result: PushResult) {
            condition.lock()
            defer { condition.unlock() }
            guard results.indices.contains(index), results[index] == nil else { return }
            results[index] = result
            remaining -= 1
            if remaining == 0 { condition.broadcast() }
        }

        /// Blocks until every push has a result, and returns them in order.
        func wait() -> [PushResult] {
            condition.lock()
            defer { condition.unlock() }
            while remaining > 0 { condition.wait() }
            return results.map { $0! }
        }
    }
}
