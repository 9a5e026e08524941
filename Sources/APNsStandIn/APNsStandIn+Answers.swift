import Foundation

extension APNsStandIn {
    /// Judges a complete request: Apple's checks, then the injected failures, then acceptance
    /// (recorded and handed to ``onPush``). Returns the answer and the latency to add.
    func answer(_ stream: StandInStream, connection: Int) -> (StandInAnswer, TimeInterval) {
        let now = configuration.clock()
        let answer: StandInAnswer
        var accepted: RecordedPush?
        switch validator.validate(stream, now: now) {
        case .reject(let refusal):
            answer = refusal
        case .accept(var push):
            push.connection = connection
            if let injected = injectedFailure(for: push, now: now) {
                answer = injected
            } else {
                accepted = push
                answer = .accepted(push.apnsId)
            }
        }
        let (handler, latency) = lock.withLock { () -> ((@Sendable (RecordedPush) -> Void)?, TimeInterval) in
            stats.requests += 1
            stats.answersByStatus[answer.status, default: 0] += 1
            if let reason = answer.reason { stats.answersByReason[reason, default: 0] += 1 }
            if let accepted {
                stats.accepted += 1
                if configuration.recordPushes { recorded.append(accepted) }
            }
            return (accepted == nil ? nil : pushHandler, plan.latency)
        }
        if let accepted, let handler { handler(accepted) }
        return (answer, latency)
    }

    /// The failure the plan injects into this valid push, if any.
    private func injectedFailure(for push: RecordedPush, now: Date) -> StandInAnswer? {
        lock.withLock {
            if let rule = plan.byToken[push.deviceToken] {
                switch rule {
                case .badDeviceToken:
                    return .error(400, "BadDeviceToken", apnsId: push.apnsId)
                case .unregistered(let since):
                    return .error(410, "Unregistered", apnsId: push.apnsId, timestamp: since)
                case .status(let status, let reason):
                    return .error(status, reason, apnsId: push.apnsId)
                case .failFirst(let count, let status, let reason):
                    let soFar = failuresSoFar[push.deviceToken, default: 0]
                    if soFar < count {
                        failuresSoFar[push.deviceToken] = soFar + 1
                        return .error(status, reason, apnsId: push.apnsId)
                    }
                case .throttleFirst(let count, let retryAfter):
                    let soFar = failuresSoFar[push.deviceToken, default: 0]
                    if soFar < count {
                        failuresSoFar[push.deviceToken] = soFar + 1
                        var answer = StandInAnswer.error(429, "TooManyRequests", apnsId: push.apnsId)
                        answer.retryAfter = retryAfter
                        return answer
                    }
                }
            }
            let draw = Double.random(in: 0..<1)
            if draw < plan.tooManyRequestsRate {
                return .error(429, "TooManyRequests", apnsId: push.apnsId)
            }
            if draw < plan.tooManyRequestsRate + plan.internalServerErrorRate {
                return .error(500, "InternalServerError", apnsId: push.apnsId)
            }
            return nil
        }
    }
}
