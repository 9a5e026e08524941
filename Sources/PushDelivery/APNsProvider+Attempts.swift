import Foundation

extension APNsProvider {
    /// Sends the next attempt of `delivery` after `delay` seconds (on the loop thread's timer).
    func attempt(_ delivery: APNsDelivery, after delay: TimeInterval) {
        let token: ProviderTokenCache.Token
        do {
            token = try tokens.current()
        } catch {
            delivery.finish(.failed(status: nil, reason: "provider token: \(error)"))
            return
        }
        delivery.token = token
        delivery.attempts += 1
        let request = delivery.request(baseURL: configuration.baseURL(for: delivery.notification.environment),
                                       token: token)
        loop.submit(request, after: delay) { [self] response in
            handle(response, for: delivery)
        }
    }

    /// Decides what an answer means for `delivery` (runs on the loop thread).
    func handle(_ response: HTTPResponse, for delivery: APNsDelivery) {
        if response.transportError == nil { delivery.lastStatus = response.status }
        if let reason = response.transportError, reason.hasPrefix("closed") {
            delivery.finish(.failed(status: delivery.lastStatus, reason: reason))
            return
        }
        let attemptsLeft = delivery.attempts < configuration.retry.maximumAttempts
        switch APNsDecision.classify(response, sentId: delivery.apnsId) {
        case .finish(let outcome):
            delivery.finish(outcome)
        case .retry(let reason):
            // A `Retry-After` longer than the provider's own waits ends this round: the caller
            // retries durably after it (SendProcessor's retries), without holding a stream.
            delivery.retryAfter = APNsDecision.retryAfter(in: response)
            let asked = delivery.retryAfter ?? 0
            guard attemptsLeft, asked <= configuration.retry.maximumDelay else {
                delivery.finish(.failed(status: response.transportError == nil ? response.status : nil, reason: reason))
                return
            }
            countRetry(renewal: false)
            attempt(delivery, after: max(asked, configuration.retry.delay(afterAttempt: delivery.attempts)))
        case .renewTokenAndRetry:
            guard attemptsLeft else {
                delivery.finish(.failed(status: 403, reason: "ExpiredProviderToken"))
                return
            }
            do {
                // Only the first stream to report this token signs a new one; the rest reuse it.
                if let stale = delivery.token { _ = try tokens.renew(replacing: stale) }
            } catch {
                delivery.finish(.failed(status: 403, reason: "ExpiredProviderToken; renewing failed: \(error)"))
                return
            }
            countRetry(renewal: true)
            attempt(delivery, after: 0)
        }
    }
}
